import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit, Fiber, Scope, TestClock } from "effect"
import type { Tools } from "@turnlog/agent"
import { SessionId } from "@turnlog/protocol"
import { McpServers } from "@turnlog/mcp"
import { ADD_SCHEMA, alive, everything, filesystem, httpServer, sseServer } from "./support/servers.js"

const context = (cwd: string): Tools.ToolContext => ({ sessionId: SessionId.make("s1"), callId: "c1", cwd })

const toolNamed = (tools: ReadonlyArray<Tools.Tool>, name: string): Tools.Tool => {
  const tool = tools.find((t) => t.spec.name === name)
  if (tool === undefined) throw new Error(`no tool ${name} in ${tools.map((t) => t.spec.name).join(", ")}`)
  return tool
}

/** Prepares and runs one call; the outcome as the model would see it. */
const call = (tools: ReadonlyArray<Tools.Tool>, name: string, args: unknown, cwd = tmpdir()) =>
  Effect.gen(function*() {
    const prepared = yield* toolNamed(tools, name).prepare(JSON.stringify(args), context(cwd))
    const outcome = yield* Effect.either(prepared.run)
    return Either.isRight(outcome)
      ? { ok: outcome.right }
      : { error: outcome.left.message, code: outcome.left.code }
  })

const start = (servers: Parameters<McpServers.Service["start"]>[0], options: McpServers.Options = {}) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const service = yield* McpServers.make({ log: (line) => lines.push(line), ...options })
    const started = yield* service.start(servers, { cwd: tmpdir() })
    return { started, lines }
  })

describe("MCP servers over stdio: the reference servers", () => {
  it.live("server-everything's tools are listed under the server's name, their schemas as served, and a call returns its text", () =>
    Effect.scoped(Effect.gen(function*() {
      const { started, lines } = yield* start([everything()])
      expect(started.failures).toEqual([])
      const names = started.tools.map((t) => t.spec.name)
      expect(names).toContain("everything__echo")
      expect(names).toContain("everything__get-tiny-image")
      expect(names).toContain("everything__get-sum")
      expect(names.every((n) => /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(n))).toBe(true)
      const echo = toolNamed(started.tools, "everything__echo")
      expect(echo.spec.description).toBe("Echoes back the input string")
      expect(echo.spec.parameters).toMatchObject({
        type: "object",
        properties: { message: { type: "string", description: "Message to echo" } },
        required: ["message"],
      })
      // readOnlyHint: no permission is asked, as for the built-in reads.
      const prepared = yield* echo.prepare(`{"message":"hello"}`, context(tmpdir()))
      expect(prepared.permission).toBeUndefined()
      expect(prepared.input).toEqual({ message: "hello" })
      expect(yield* prepared.run).toBe("Echo: hello")
      expect(yield* call(started.tools, "everything__get-sum", { a: 2, b: 40 })).toEqual({ ok: "The sum of 2 and 40 is 42." })
      expect(lines).toEqual([])
    })))

  it.live("non-text content is described: an image by its type and size", () =>
    Effect.scoped(Effect.gen(function*() {
      const { started } = yield* start([everything()])
      const result = yield* call(started.tools, "everything__get-tiny-image", {})
      expect(result).toEqual({
        ok: "Here's the image you requested:\n[image image/png, 4033 bytes]\nThe image above is the MCP logo.",
      })
    })))

  it.live("arguments that are not a JSON object are refused before the server is asked", () =>
    Effect.scoped(Effect.gen(function*() {
      const { started } = yield* start([everything()])
      const refused = yield* Effect.flip(toolNamed(started.tools, "everything__echo").prepare("[1]", context(tmpdir())))
      expect(refused.message).toBe("invalid arguments for everything__echo: the arguments must be a JSON object")
      // The server validates the rest and says what is wrong: an error result the model sees.
      const wrong = yield* call(started.tools, "everything__echo", { message: 3 })
      expect(wrong).toMatchObject({ code: "TOOL_FAILED" })
      expect((wrong as { error: string }).error).toMatch(/^echo on MCP server "everything" failed: .*message/s)
    })))

  it.live("server-filesystem in a temporary directory: a read runs without asking, a write asks, both act on the directory", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "turnlog-mcp-fs-"))
      writeFileSync(join(dir, "notes.txt"), "first line\n")
      const { started } = yield* start([filesystem(dir)])
      expect(started.failures).toEqual([])
      expect(yield* call(started.tools, "fs__read_text_file", { path: join(dir, "notes.txt") })).toEqual({ ok: "first line\n" })
      const write = yield* toolNamed(started.tools, "fs__write_file").prepare(
        JSON.stringify({ path: join(dir, "out.txt"), content: "written" }),
        context(dir),
      )
      expect(write.permission).toEqual({ kind: "command", title: "Write File (MCP server fs)" })
      expect(yield* write.run).toBe(`Successfully wrote to ${join(dir, "out.txt")}`)
      expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("written")
      const outside = yield* call(started.tools, "fs__read_text_file", { path: "/etc/hostname" })
      expect(outside).toMatchObject({ code: "TOOL_FAILED" })
      expect((outside as { error: string }).error).toMatch(/^read_text_file on MCP server "fs" failed: .*outside allowed directories/s)
    })))

  it.live("servers are stopped when their scope closes: no process is left", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { started } = yield* start([everything(), everything("second")]).pipe(Scope.extend(scope))
      const pids = started.servers.map((s) => s.pid!)
      expect(pids).toHaveLength(2)
      expect(pids.every(alive)).toBe(true)
      // Two servers with one tool set: each keeps its own namespace.
      expect(started.tools.filter((t) => t.spec.name.endsWith("__echo")).map((t) => t.spec.name)).toEqual([
        "everything__echo",
        "second__echo",
      ])
      yield* Scope.close(scope, Exit.void)
      expect(pids.map(alive)).toEqual([false, false])
    }))
})

describe("MCP servers that fail", () => {
  it.live("a server that cannot be started is one sentence naming it; the others start", () =>
    Effect.scoped(Effect.gen(function*() {
      const { started, lines } = yield* start([
        { name: "ghost", command: "/nonexistent/mcp-server", args: [], env: [] },
        { name: "quitter", command: process.execPath, args: ["-e", "console.error('missing API token'); process.exit(3)"], env: [] },
        everything(),
      ])
      expect(started.failures).toEqual([
        {
          server: "ghost",
          message: `MCP server "ghost" could not be started: spawn /nonexistent/mcp-server ENOENT; its tools are not available in this session`,
        },
        {
          server: "quitter",
          message:
            `MCP server "quitter" could not be started: MCP error -32000: Connection closed (its last words: missing API token); its tools are not available in this session`,
        },
      ])
      expect(lines).toEqual(started.failures.map((f) => f.message))
      expect(started.servers.map((s) => s.name)).toEqual(["everything"])
      expect(started.tools.some((t) => t.spec.name.startsWith("ghost"))).toBe(false)
    })))

  it.live("a server that crashes mid-session: its calls fail with a sentence naming it, at once", () =>
    Effect.scoped(Effect.gen(function*() {
      const { started, lines } = yield* start([everything()])
      expect(yield* call(started.tools, "everything__echo", { message: "before" })).toEqual({ ok: "Echo: before" })
      const pid = started.servers[0]!.pid!
      process.kill(pid, "SIGKILL")
      while (alive(pid)) yield* Effect.sleep("20 millis")
      // The transport notices the closed pipe a moment after the process is gone.
      while (lines.length === 0) yield* Effect.sleep("20 millis")
      expect(lines).toEqual([`MCP server "everything" stopped unexpectedly; its tools fail from now on in this session`])
      expect(yield* call(started.tools, "everything__echo", { message: "after" })).toEqual({
        error: `echo on MCP server "everything" failed: the server stopped unexpectedly`,
        code: "TOOL_FAILED",
      })
    })))

  it.scoped("a call the server never answers fails after the call timeout, and the server keeps serving", () =>
    Effect.gen(function*() {
      const { started } = yield* start([everything()], { callTimeoutMs: 5_000 })
      const fiber = yield* Effect.fork(
        call(started.tools, "everything__trigger-long-running-operation", { duration: 600, steps: 1 }),
      )
      // The timeout runs on the test clock: wait until the call is waiting on it, then let it pass.
      while ((yield* TestClock.sleeps()).length === 0) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(fiber)).toEqual({
        error: `trigger-long-running-operation on MCP server "everything" timed out after 5000 ms and was stopped`,
        code: "TOOL_TIMEOUT",
      })
      expect(yield* call(started.tools, "everything__echo", { message: "still here" })).toEqual({ ok: "Echo: still here" })
    }))
})

describe("MCP servers over http", () => {
  it.live("a streamable-http server on loopback: its tool listed with a provider-safe name, its schema as served, headers sent", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* httpServer
      const { started } = yield* start([
        { type: "http", name: "calc", url: server.url, headers: [{ name: "Authorization", value: "Bearer t0ken" }] },
      ])
      expect(started.failures).toEqual([])
      expect(started.tools.map((t) => t.spec)).toEqual([
        { name: "calc__add_numbers", description: "Adds two numbers", parameters: ADD_SCHEMA },
      ])
      const prepared = yield* started.tools[0]!.prepare(`{"a":2,"b":3}`, context(tmpdir()))
      // No read-only annotation: the call asks.
      expect(prepared.permission).toEqual({ kind: "command", title: "add.numbers (MCP server calc)" })
      expect(yield* prepared.run).toBe("5")
      expect(yield* call(started.tools, "calc__add_numbers", { a: "x" })).toEqual({
        error: `add.numbers on MCP server "calc" failed: a and b must be numbers`,
        code: "TOOL_FAILED",
      })
      expect(new Set(server.seenAuth)).toEqual(new Set(["Bearer t0ken"]))
    })))

  it.live("an sse server on loopback: listed and called the same way", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* sseServer
      const { started } = yield* start([{ type: "sse", name: "old calc", url: server.url, headers: [] }])
      expect(started.failures).toEqual([])
      expect(started.tools.map((t) => t.spec.name)).toEqual(["old_calc__add_numbers"])
      expect(yield* call(started.tools, "old_calc__add_numbers", { a: 40, b: 2 })).toEqual({ ok: "42" })
    })))

  it.live("an http server that is not there cannot be started: one sentence naming it", () =>
    Effect.scoped(Effect.gen(function*() {
      const { started } = yield* start([{ type: "http", name: "gone", url: "http://127.0.0.1:9/mcp", headers: [] }])
      expect(started.tools).toEqual([])
      expect(started.failures.map((f) => f.server)).toEqual(["gone"])
      expect(started.failures[0]!.message).toMatch(
        /^MCP server "gone" could not be started: .*; its tools are not available in this session$/,
      )
    })))
})
