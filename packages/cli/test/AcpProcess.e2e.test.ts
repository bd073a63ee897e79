// `turnlog acp` as an editor runs it: the real binary as a subprocess, the
// SDK's client on its stdio, the scripted model. What is held here: a signal
// (Ctrl-C forwarded by the editor's terminal, a SIGTERM) answers the prompts
// in flight as cancelled before the process exits, and a message over the
// SDK's frame limit is answered with an error while the other sessions go on.
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { Readable, Writable } from "node:stream"
import * as acp from "@agentclientprotocol/sdk"
import { Lines } from "@turnlog/testkit"
import { afterAll, describe, expect, it, vi } from "vitest"
import { BIN, cleanEnv, removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000 })
afterAll(removeTempDirs)

const text = (value: string, options: { delayMs?: number; stall?: boolean } = {}) =>
  JSON.stringify({
    chunks: [
      { type: "block-start", index: 0, blockType: "text" },
      ...value.split(" ").map((word, i) => ({ type: "text-delta", index: 0, text: i === 0 ? word : ` ${word}` })),
      ...(options.stall === true ? [] : [
        { type: "block-end", index: 0, block: { type: "text", text: value } },
        { type: "finish", reason: { kind: "stop" } },
      ]),
    ],
    ...options,
  })

interface Agent {
  readonly child: ChildProcess
  readonly home: string
  readonly cwd: string
  readonly stream: acp.Stream
  /** Frames the agent wrote that answer ids the client never used (raw lines). */
  readonly foreign: Array<unknown>
  readonly writeRaw: (text: string) => Promise<void>
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>
  /** Resolves once the agent's stderr contains `text`. */
  readonly said: (text: string) => Promise<void>
}

const startAgent = (
  model: ReadonlyArray<string>,
  clientIds: (id: unknown) => boolean,
  env: Readonly<Record<string, string>> = {},
): Agent => {
  const home = tempDir("acp-home")
  const cwd = tempDir("acp-cwd")
  const script = join(home, "model.jsonl")
  writeFileSync(script, model.map((line) => `${line}\n`).join(""))
  const child = spawn(process.execPath, [BIN, "acp"], {
    cwd,
    env: { ...cleanEnv(), TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: script, ...env },
    stdio: "pipe",
  })
  let stderr = ""
  const waiting: Array<{ readonly text: string; readonly resolve: () => void }> = []
  child.stderr!.setEncoding("utf8").on("data", (t: string) => {
    stderr += t
    for (const wait of waiting) if (stderr.includes(wait.text)) wait.resolve()
  })
  const said = (text: string) =>
    new Promise<void>((resolve) => {
      if (stderr.includes(text)) resolve()
      else waiting.push({ text, resolve })
    })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stderr }))
  )
  const writer = (Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>).getWriter()
  const foreign: Array<unknown> = []
  const output = (Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>).pipeThrough(Lines.tap((line) => {
    const frame = JSON.parse(line) as { id?: unknown; method?: unknown }
    if ("id" in frame && frame.method === undefined && !clientIds(frame.id)) {
      foreign.push(frame)
      return false
    }
    return true
  }))
  const input = new WritableStream<Uint8Array>({ write: (chunk) => writer.write(chunk), close: () => writer.close() })
  return {
    child,
    home,
    cwd,
    stream: acp.ndJsonStream(input, output),
    foreign,
    writeRaw: (t) => writer.write(new TextEncoder().encode(t)),
    exited,
    said,
  }
}

const logOf = (home: string, sessionId: string) =>
  readFileSync(join(home, "sessions", `${sessionId}.jsonl`), "utf8").split("\n").filter((l) => l !== "").slice(1)
    .map((l) => JSON.parse(l) as { type: string; data: unknown })

describe.each([["SIGINT", 130], ["SIGTERM", 143]] as const)("turnlog acp stopped by %s", (signal, code) => {
  it("answers the prompt in flight as cancelled, closes its turn in the log, then exits", async () => {
    const agent = startAgent([text("Thinking about it", { stall: true })], () => true)
    const seen: Array<string> = []
    let firstChunk: () => void = () => undefined
    const streaming = new Promise<void>((resolve) => {
      firstChunk = resolve
    })
    const [sessionId, answer] = await acp.client({ name: "test" })
      .onNotification("session/update", ({ params }) => {
        if (params.update.sessionUpdate === "agent_message_chunk" && params.update.content.type === "text") {
          seen.push(params.update.content.text)
          firstChunk()
        }
      })
      .connectWith(agent.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
        const { sessionId } = await ctx.request("session/new", { cwd: agent.cwd, mcpServers: [] })
        const prompt = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })
        await streaming
        agent.child.kill(signal)
        return [sessionId, await prompt] as const
      })
    expect(answer).toEqual({ stopReason: "cancelled" })
    const { code: exitCode, stderr } = await agent.exited
    expect(exitCode, stderr).toBe(code)
    expect(stderr).toContain("turnlog: stopping: cancelling the prompt in flight\n")
    const log = logOf(agent.home, sessionId)
    expect(log.at(-1)).toMatchObject({ type: "turn/end", data: { reason: "cancelled" } })
    expect(seen.length).toBeGreaterThan(0)
  })
})

const SLOW_FSYNC_MS = 3000

/** A preload that makes every fsync take 3 s once `marker` exists: a shutdown that takes its time, on cue. */
const slowDisk = (dir: string, marker: string): string => {
  const file = join(dir, "slow-fsync.mjs")
  writeFileSync(
    file,
    `import fs from "node:fs"
import { syncBuiltinESMExports } from "node:module"
for (const name of ["fsyncSync", "fdatasyncSync"]) {
  const original = fs[name]
  fs[name] = (fd) => {
    if (fs.existsSync(${JSON.stringify(marker)})) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${SLOW_FSYNC_MS})
    return original(fd)
  }
}
syncBuiltinESMExports()
`,
  )
  return pathToFileURL(file).href
}

/**
 * A launcher that forwards Ctrl-C to turnlog, which also sits in the terminal's process group,
 * delivers SIGINT twice. The second arrives here while the first one's cancel is being written
 * (to a disk made slow, so that it is still being written).
 */
describe("turnlog acp given SIGINT again while it cancels the prompt in flight", () => {
  it("holds the second: the prompt is answered cancelled and its turn closed before the process exits 130", async () => {
    const dir = tempDir("acp-slow-disk")
    const marker = join(dir, "disk-stalls-now")
    const agent = startAgent([text("Thinking about it", { stall: true })], () => true, {
      NODE_OPTIONS: `--import=${slowDisk(dir, marker)}`,
    })
    let firstChunk: () => void = () => undefined
    const streaming = new Promise<void>((resolve) => {
      firstChunk = resolve
    })
    let answer: unknown = "not answered"
    const connection = acp.client({ name: "test" })
      .onNotification("session/update", ({ params }) => {
        if (params.update.sessionUpdate === "agent_message_chunk") firstChunk()
      })
      .connectWith(agent.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
        const { sessionId } = await ctx.request("session/new", { cwd: agent.cwd, mcpServers: [] })
        const prompt = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })
        await streaming
        writeFileSync(marker, "")
        agent.child.kill("SIGINT")
        await agent.said("turnlog: stopping: cancelling the prompt in flight\n")
        agent.child.kill("SIGINT")
        answer = await prompt.catch((error: unknown) => `failed: ${String(error)}`)
        return sessionId
      })
    const sessionId = await connection
    const { code, signal, stderr } = await agent.exited
    expect(answer).toEqual({ stopReason: "cancelled" })
    expect([code, signal], stderr).toEqual([130, null])
    expect(logOf(agent.home, sessionId).at(-1)).toMatchObject({ type: "turn/end", data: { reason: "cancelled" } })
  })
})

describe("a message over the frame limit", () => {
  it("is answered with an error by its id, said on stderr, and the other session's running turn completes", async () => {
    const OVERSIZED_ID = 7777
    const agent = startAgent(
      [text("Slow and steady answer from the first session", { delayMs: 150 }), text("Second session works.")],
      (id) => id !== OVERSIZED_ID,
    )
    const result = await acp.client({ name: "test" })
      .onNotification("session/update", () => undefined)
      .connectWith(agent.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
        const a = await ctx.request("session/new", { cwd: agent.cwd, mcpServers: [] })
        const b = await ctx.request("session/new", { cwd: agent.cwd, mcpServers: [] })
        const running = ctx.request("session/prompt", { sessionId: a.sessionId, prompt: [{ type: "text", text: "a" }] })
        const huge = "x".repeat(33 * 1024 * 1024)
        await agent.writeRaw(
          `{"jsonrpc":"2.0","id":${OVERSIZED_ID},"method":"session/prompt","params":{"sessionId":"${b.sessionId}","prompt":[{"type":"text","text":"${huge}"}]}}\n`,
        )
        const first = await running
        const second = await ctx.request("session/prompt", { sessionId: b.sessionId, prompt: [{ type: "text", text: "b" }] })
        return { first, second, bytes: huge.length }
      })
    expect(result.first).toEqual({ stopReason: "end_turn" })
    expect(result.second).toEqual({ stopReason: "end_turn" })
    const frameBytes = result.bytes + 150
    expect(agent.foreign).toHaveLength(1)
    const answer = agent.foreign[0] as { id: number; error: { code: number; message: string } }
    expect(answer.id).toBe(OVERSIZED_ID)
    expect(answer.error.code).toBe(-32600)
    expect(answer.error.message).toMatch(/^Invalid request: a message of \d+ bytes is over the 33554432-byte limit of one frame and was not read$/)
    const bytes = Number(/of (\d+) bytes/.exec(answer.error.message)![1])
    expect(Math.abs(bytes - frameBytes)).toBeLessThan(200)
    const { code, stderr } = await (async () => {
      agent.child.stdin!.end()
      return agent.exited
    })()
    expect(code, stderr).toBe(0)
    expect(stderr).toContain(
      `turnlog: a message of ${bytes} bytes is over the 33554432-byte limit of one frame and was not read (session/prompt, request id ${OVERSIZED_ID}); answered with an error\n`,
    )
  })
})

describe("session/close", () => {
  it("lets go of the session: another process can continue it while the agent keeps running", async () => {
    const agent = startAgent([text("First answer.")], () => true)
    const sessionId = await acp.client({ name: "test" })
      .onNotification("session/update", () => undefined)
      .connectWith(agent.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
        const { sessionId } = await ctx.request("session/new", { cwd: agent.cwd, mcpServers: [] })
        await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "first" }] })
        await ctx.request("session/close", { sessionId })
        const script = join(agent.home, "second.jsonl")
        writeFileSync(script, `${text("Second answer.")}\n`)
        const run = await turnlog(["run", "--session", sessionId, "second"], {
          cwd: agent.cwd,
          env: { TURNLOG_HOME: agent.home, TURNLOG_SCRIPTED_MODEL: script },
        })
        expect(run.stderr).not.toContain("open for writing")
        expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "Second answer.\n" })
        expect(agent.child.exitCode).toBeNull()
        return sessionId
      })
    agent.child.stdin!.end()
    expect((await agent.exited).code).toBe(0)
    expect(logOf(agent.home, sessionId).filter((e) => e.type === "turn/end")).toHaveLength(2)
  })
})
