/**
 * The built-in tools through the editor's file system and terminal, over the
 * real loop: an editor that offers `fs` and `terminal` in `initialize` is asked
 * to read, write and run, with the confined absolute path; one that offers
 * nothing gets the disk. Either way the log holds the same events.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as acp from "@agentclientprotocol/sdk"
import { afterEach, describe, expect, it } from "vitest"
import { type Call, cleanup, finish, start, text, toolCall } from "./realLoop.js"

afterEach(cleanup)

/** What the editor was asked, in order: method and params. */
type Asked = Array<[string, unknown]>

interface Editor {
  readonly capabilities: acp.ClientCapabilities
  readonly read?: (params: acp.ReadTextFileRequest) => acp.ReadTextFileResponse
  /** The terminal's answers: its output, and how the command exits (`hang`: never, until killed). */
  readonly terminal?: { readonly output: string; readonly exit: acp.WaitForTerminalExitResponse | "hang" }
  /** The user cancels the prompt while the command runs. */
  readonly cancelWhileRunning?: boolean
}

const OFFERS_ALL: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: true }

/** One session, one prompt; every permission allowed. */
const session = async (h: ReturnType<typeof start>, editor: Editor) => {
  const asked: Asked = []
  const updates: Array<acp.SessionUpdate> = []
  let killed: () => void = () => undefined
  const dead = new Promise<acp.WaitForTerminalExitResponse>((resolve) => (killed = () => resolve({ signal: "SIGKILL" })))
  const id = await acp.client({ name: "editor" })
    .onNotification("session/update", ({ params }) => void updates.push(params.update))
    .onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "allow-once" } }))
    .onRequest("fs/read_text_file", ({ params }) => (asked.push(["fs/read_text_file", params]), editor.read!(params)))
    .onRequest("fs/write_text_file", ({ params }) => (asked.push(["fs/write_text_file", params]), {}))
    .onRequest("terminal/create", ({ params }) => (asked.push(["terminal/create", params]), { terminalId: "term-1" }))
    .onRequest("terminal/wait_for_exit", ({ params, agent }) => {
      asked.push(["terminal/wait_for_exit", params])
      if (editor.cancelWhileRunning === true) void agent.notify("session/cancel", { sessionId: params.sessionId })
      return editor.terminal!.exit === "hang" ? dead : editor.terminal!.exit
    })
    .onRequest("terminal/kill", ({ params }) => (asked.push(["terminal/kill", params]), killed(), {}))
    .onRequest("terminal/output", ({ params }) => (asked.push(["terminal/output", params]), { output: editor.terminal!.output, truncated: false }))
    .onRequest("terminal/release", ({ params }) => (asked.push(["terminal/release", params]), {}))
    .connectWith(h.connect().client, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: editor.capabilities })
      const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })
      return sessionId
    })
  const log = await h.log(id)
  // What the model is given for each call.
  const results = log.events.flatMap((e) =>
    e.type === "tool/result"
      ? e.data.message.content.flatMap((b) => (b.type === "tool-result" ? [{ content: b.content, isError: b.isError === true }] : []))
      : []
  )
  return { id, asked, updates, results, types: log.events.map((e) => e.type) }
}

const oneCall = (name: string, args: unknown): ReadonlyArray<Call> => [
  { chunks: [...toolCall(0, "call_1", name, JSON.stringify(args)), finish("tool-calls")] },
  { chunks: [...text(0, "Done."), finish("stop")] },
]

describe("an editor that offers its file system and terminal", () => {
  it("read_file reads the unsaved buffer through fs/read_text_file, by the confined absolute path", async () => {
    const h = start(oneCall("read_file", { path: "src/a.ts" }))
    // Only in the editor: nothing is on disk.
    const s = await session(h, { capabilities: OFFERS_ALL, read: () => ({ content: "export const a = 2 // unsaved\n" }) })
    expect(s.asked).toEqual([["fs/read_text_file", { sessionId: s.id, path: join(h.cwd, "src/a.ts") }]])
    expect(s.results).toEqual([{ content: "export const a = 2 // unsaved\n", isError: false }])
  })

  it("write_file writes through fs/write_text_file and not to disk", async () => {
    const h = start(oneCall("write_file", { path: "lib/out.txt", content: "hello\n" }))
    const s = await session(h, { capabilities: OFFERS_ALL })
    expect(s.asked).toEqual([["fs/write_text_file", { sessionId: s.id, path: join(h.cwd, "lib/out.txt"), content: "hello\n" }]])
    expect(s.results).toEqual([{ content: "wrote 6 bytes to lib/out.txt", isError: false }])
    expect(existsSync(join(h.cwd, "lib/out.txt"))).toBe(false)
  })

  it("edit_file edits the editor's text and writes the result back through it", async () => {
    const h = start(oneCall("edit_file", { path: "a.ts", old_text: "a = 1", new_text: "a = 2" }))
    writeFileSync(join(h.cwd, "a.ts"), "const a = 0\n")
    const s = await session(h, { capabilities: OFFERS_ALL, read: () => ({ content: "const a = 1\n" }) })
    expect(s.asked).toEqual([
      ["fs/read_text_file", { sessionId: s.id, path: join(h.cwd, "a.ts") }],
      ["fs/write_text_file", { sessionId: s.id, path: join(h.cwd, "a.ts"), content: "const a = 2\n" }],
    ])
    expect(s.results).toEqual([
      { content: "edited a.ts: 1 replacement\n--- a/a.ts\n+++ b/a.ts\n@@ -1,1 +1,1 @@\n-const a = 1\n+const a = 2", isError: false },
    ])
  })

  it("run_command runs in the editor's terminal, which the call embeds; the model gets its output", async () => {
    const h = start(oneCall("run_command", { command: "echo hi" }))
    const s = await session(h, { capabilities: OFFERS_ALL, terminal: { output: "hi\n", exit: { exitCode: 0 } } })
    expect(s.asked.map(([method]) => method)).toEqual(["terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release"])
    const create = s.asked[0]![1] as acp.CreateTerminalRequest
    // The shell as a child process would run it (inside the sandbox, where there is one).
    expect([create.command, ...(create.args ?? [])].slice(-3)).toEqual(["/bin/sh", "-c", "echo hi"])
    expect(create.cwd).toBe(h.cwd)
    expect(s.results).toEqual([{ content: "hi\n", isError: false }])
    const calls = s.updates.flatMap((u) => (u.sessionUpdate === "tool_call_update" ? [{ status: u.status, content: u.content }] : []))
    expect(calls).toEqual([
      { status: "in_progress", content: undefined },
      { status: undefined, content: [{ type: "terminal", terminalId: "term-1" }] },
      {
        status: "completed",
        content: [{ type: "terminal", terminalId: "term-1" }, { type: "content", content: { type: "text", text: "hi\n" } }],
      },
    ])
  })

  it("a command past its timeout is killed in the terminal and the model gets its output so far", async () => {
    const h = start(oneCall("run_command", { command: "sleep 60", timeoutMs: 50 }))
    const s = await session(h, { capabilities: OFFERS_ALL, terminal: { output: "started\n", exit: "hang" } })
    expect(s.asked.map(([method]) => method)).toEqual([
      "terminal/create",
      "terminal/wait_for_exit",
      "terminal/kill",
      "terminal/output",
      "terminal/release",
    ])
    expect(s.results).toEqual([{ content: "run_command timed out after 50 ms and was stopped\nstarted\n", isError: true }])
  })

  it("a cancel while the command runs kills it in the terminal and lets the terminal go", async () => {
    const h = start(oneCall("run_command", { command: "sleep 60" }))
    const s = await session(h, { capabilities: OFFERS_ALL, terminal: { output: "", exit: "hang" }, cancelWhileRunning: true })
    const terminal = { sessionId: s.id, terminalId: "term-1" }
    expect(s.asked.slice(1)).toEqual([
      ["terminal/wait_for_exit", terminal],
      ["terminal/kill", terminal],
      ["terminal/release", terminal],
    ])
    expect(s.results).toEqual([
      { content: "run_command was cancelled while running; it may or may not have completed its work", isError: true },
    ])
  })

  it("a non-zero exit is the same failure a child process's would be", async () => {
    const h = start(oneCall("run_command", { command: "false" }))
    const s = await session(h, { capabilities: OFFERS_ALL, terminal: { output: "no\n", exit: { exitCode: 3 } } })
    expect(s.results).toEqual([{ content: "run_command failed: exit status 3\nno\n", isError: true }])
  })

  it("a path outside the session's directory is refused before the editor is asked anything", async () => {
    const h = start([
      {
        chunks: [
          ...toolCall(0, "call_1", "read_file", JSON.stringify({ path: "../secret.txt" })),
          ...toolCall(1, "call_2", "write_file", JSON.stringify({ path: "/etc/x", content: "x" })),
          finish("tool-calls"),
        ],
      },
      { chunks: [...text(0, "Done."), finish("stop")] },
    ])
    const s = await session(h, { capabilities: OFFERS_ALL, read: () => ({ content: "leaked" }) })
    expect(s.asked).toEqual([])
    expect(s.results.map((r) => [r.isError, r.content.split(" is outside")[0]])).toEqual([
      [true, `path "../secret.txt"`],
      [true, `path "/etc/x"`],
    ])
  })

  it("an editor's failure is the tool's failure, in one sentence naming the path", async () => {
    const h = start(oneCall("read_file", { path: "src/a.ts" }))
    const s = await session(h, {
      capabilities: OFFERS_ALL,
      read: () => {
        throw new acp.RequestError(-32002, "Resource not found: src/a.ts")
      },
    })
    expect(s.results).toEqual([{ content: "read_file failed: the editor could not read src/a.ts: Resource not found: src/a.ts", isError: true }])
  })
})

describe("an editor that offers nothing", () => {
  it("gets today's disk and child process, and the log holds the same events as through the editor", async () => {
    const calls = (n: number): ReadonlyArray<Call> => [
      {
        chunks: [
          ...toolCall(0, `call_${n}a`, "read_file", JSON.stringify({ path: "src/a.ts" })),
          ...toolCall(1, `call_${n}b`, "write_file", JSON.stringify({ path: "out.txt", content: "hello\n" })),
          finish("tool-calls"),
        ],
      },
      { chunks: [...text(0, "Done."), finish("stop")] },
    ]
    const disk = start(calls(1))
    mkdirSync(join(disk.cwd, "src"))
    writeFileSync(join(disk.cwd, "src/a.ts"), "export const a = 1\n")
    const plain = await session(disk, { capabilities: {} })
    expect(plain.asked).toEqual([])
    expect(plain.results).toEqual([
      { content: "export const a = 1\n", isError: false },
      { content: "wrote 6 bytes to out.txt", isError: false },
    ])
    expect(existsSync(join(disk.cwd, "out.txt"))).toBe(true)

    const hosted = await session(start(calls(2)), { capabilities: OFFERS_ALL, read: () => ({ content: "export const a = 1\n" }) })
    expect(hosted.results).toEqual(plain.results)
    expect(hosted.types).toEqual(plain.types)
  })
})
