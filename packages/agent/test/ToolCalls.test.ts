// Tool calls through the loop: each durable before it runs, asked about when it
// writes or runs a command, and answered with a result the model sees — an
// error result when anything goes wrong, never the end of the turn.
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type { SessionLog } from "@turnlog/protocol"
import * as Tools from "../src/Tools.js"
import * as C from "./support/chunks.js"
import { outline, setup, shapes } from "./support/harness.js"

const results = (events: ReadonlyArray<SessionLog.SessionEvent>) =>
  events.flatMap((e) => {
    if (e.type !== "tool/result") return []
    const block = e.data.message.content[0]!
    return block.type === "tool-result"
      ? [{ callId: block.toolCallId, content: block.content, isError: block.isError ?? false, code: e.data.code }]
      : []
  })

describe("a tool round trip", () => {
  it.scopedLive("tool-calls → durable intent → permission → run → result → the model's final text", () =>
    Effect.gen(function*() {
      const args = JSON.stringify({ path: "hello.txt", content: "hi there" })
      const h = yield* setup([
        [...C.text(0, "Writing."), ...C.toolCall(1, "call_1", "write_file", args), C.usage(10, 5), C.toolCalls()],
        C.reply("Wrote hello.txt."),
      ])

      const updates = yield* h.prompt("make hello.txt")
      expect(updates).toEqual([
        { type: "turn-start" },
        { type: "text-delta", text: "Writing." },
        { type: "usage", usage: { inputTokens: 10, outputTokens: 5 } },
        { type: "tool-call", callId: "call_1", name: "write_file", arguments: args },
        { type: "tool-running", callId: "call_1", name: "write_file" },
        {
          type: "tool-result",
          callId: "call_1",
          name: "write_file",
          content: "wrote 8 bytes to hello.txt",
          isError: false,
        },
        { type: "text-delta", text: "Wrote hello.txt." },
        { type: "turn-end", reason: "completed" },
      ])
      expect(fs.readFileSync(path.join(h.cwd, "hello.txt"), "utf8")).toBe("hi there")
      expect(h.questions).toEqual([{
        sessionId: h.id,
        callId: "call_1",
        tool: "write_file",
        kind: "write",
        title: "Write hello.txt",
        input: { path: "hello.txt", content: "hi there" },
      }])

      const events = yield* h.events()
      expect(outline(events)).toEqual([
        "turn/start",
        "user/message",
        "request/start",
        "assistant/chunk*",
        "assistant/message",
        "tool/call",
        "tool/result",
        "request/start",
        "assistant/chunk*",
        "assistant/message",
        "turn/end",
      ])
      expect(shapes(events.filter((e) => e.type === "request/start"))).toEqual([
        { type: "request/start", data: { provider: "scripted", model: "test-model", step: 1, attempt: 1 } },
        { type: "request/start", data: { provider: "scripted", model: "test-model", step: 2, attempt: 1 } },
      ])
      expect(shapes(events.filter((e) => e.type === "tool/call"))).toEqual([
        { type: "tool/call", data: { callId: "call_1", name: "write_file", arguments: args } },
      ])
      expect(results(events)).toEqual([
        { callId: "call_1", content: "wrote 8 bytes to hello.txt", isError: false, code: undefined },
      ])

      // Flushed before each request, before the tool is asked about and run, and at turn end.
      const tail = h.ops.slice(h.ops.indexOf("append tool/call"))
      expect(tail.slice(0, 6)).toEqual([
        "append tool/call",
        "flush",
        "ask Write hello.txt",
        "append tool/result",
        "append request/start",
        "flush",
      ])
      expect(h.ops.slice(-2)).toEqual(["append turn/end", "flush"])
      expect(h.ops.slice(0, 3)).toEqual(["append turn/start,user/message", "append request/start", "flush"])

      // The next request carries the tool call and its result.
      const requests = yield* h.requests
      const second = requests[1]!.messages
      expect(second.map((m) => [m.role, m.content])).toEqual([
        ["user", [{ type: "text", text: "make hello.txt" }]],
        ["assistant", [{ type: "text", text: "Writing." }, {
          type: "tool-call",
          id: "call_1",
          name: "write_file",
          arguments: args,
        }]],
        ["user", [{ type: "tool-result", toolCallId: "call_1", content: "wrote 8 bytes to hello.txt" }]],
      ])
      expect(second[2]!.source).toEqual({ kind: "tool", callId: "call_1" })
      expect(requests[0]!.tools!.map((t) => t.name)).toEqual(["read_file", "list_files", "edit_file", "write_file", "run_command", "todo"])
    }))

  it.scopedLive("a denied permission is an error result; the tool does not run and the turn goes on", () =>
    Effect.gen(function*() {
      const h = yield* setup([
        [...C.toolCall(0, "call_1", "run_command", `{"command":"touch ran.txt"}`), C.toolCalls()],
        C.reply("Understood."),
      ], { permissions: () => Effect.succeed("deny") })
      const updates = yield* h.prompt("touch it")
      expect(updates.filter((u) => u.type === "tool-result")).toEqual([{
        type: "tool-result",
        callId: "call_1",
        name: "run_command",
        content: "permission denied: Run touch ran.txt",
        isError: true,
      }])
      expect(updates.some((u) => u.type === "tool-running")).toBe(false)
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      expect(fs.existsSync(path.join(h.cwd, "ran.txt"))).toBe(false)
      expect(results(yield* h.events())).toEqual([{
        callId: "call_1",
        content: "permission denied: Run touch ran.txt",
        isError: true,
        code: "PERMISSION_DENIED",
      }])
      const requests = yield* h.requests
      expect(requests[1]!.messages[2]!.content).toEqual([
        { type: "tool-result", toolCallId: "call_1", content: "permission denied: Run touch ran.txt", isError: true },
      ])
    }))

  it.scopedLive("invalid JSON, a path outside cwd, an unknown tool, a command that times out: error results, in order", () =>
    Effect.gen(function*() {
      const badJson = `{"path": "a.txt", "content": "x"`
      let parseError = ""
      try {
        JSON.parse(badJson)
      } catch (e) {
        parseError = (e as Error).message
      }
      const h = yield* setup([
        [
          ...C.toolCall(0, "c1", "write_file", badJson),
          ...C.toolCall(1, "c2", "read_file", `{"path":"../../etc/passwd"}`),
          ...C.toolCall(2, "c3", "fetch_url", `{"url":"http://example.com"}`),
          ...C.toolCall(3, "c4", "run_command", `{"command":"echo begun; sleep 30"}`),
          ...C.toolCall(4, "c5", "list_files", `{}`),
          C.toolCalls(),
        ],
        C.reply("Noted."),
      ], { builtins: { commandTimeoutMs: 300 } })
      fs.writeFileSync(path.join(h.cwd, "seen.txt"), "")
      const updates = yield* h.prompt("try things")
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const events = yield* h.events()
      expect(results(events)).toEqual([
        {
          callId: "c1",
          content: `invalid arguments for write_file: the arguments are not valid JSON (${parseError})`,
          isError: true,
          code: "INVALID_ARGUMENTS",
        },
        {
          callId: "c2",
          content: `path "../../etc/passwd" is outside the session directory ${h.cwd}`,
          isError: true,
          code: "PATH_OUTSIDE_CWD",
        },
        { callId: "c3", content: `unknown tool "fetch_url"`, isError: true, code: "UNKNOWN_TOOL" },
        {
          callId: "c4",
          content: "run_command timed out after 300 ms and was stopped\nbegun\n",
          isError: true,
          code: "TOOL_TIMEOUT",
        },
        { callId: "c5", content: "seen.txt", isError: false, code: undefined },
      ])
      // The invalid call is still durable intent; only the command was asked about.
      expect(events.filter((e) => e.type === "tool/call").map((e) => e.data.callId)).toEqual([
        "c1",
        "c2",
        "c3",
        "c4",
        "c5",
      ])
      expect(h.questions.map((q) => q.title)).toEqual(["Run echo begun; sleep 30"])
      expect(fs.existsSync(path.join(h.cwd, "a.txt"))).toBe(false)
      const requests = yield* h.requests
      expect(requests[1]!.messages.filter((m) => m.source.kind === "tool")).toHaveLength(5)
    }))

  it.scopedLive("a registered custom tool runs with its decoded arguments", () =>
    Effect.gen(function*() {
      const add = Tools.define({
        name: "add",
        description: "Add two integers",
        parameters: Schema.Struct({ a: Schema.Int, b: Schema.Int }),
        display: { kind: "other", title: (args) => `Add ${args.a} and ${args.b}` },
        prepare: (args) => Effect.succeed({ run: Effect.succeed(String(args.a + args.b)) }),
      })
      const h = yield* setup([
        [...C.toolCall(0, "c1", "add", `{"a":2,"b":40}`), C.toolCalls()],
        C.reply("42"),
      ], { extraTools: [add] })
      yield* h.prompt("add")
      expect(results(yield* h.events())).toEqual([{ callId: "c1", content: "42", isError: false, code: undefined }])
      expect((yield* h.requests)[0]!.tools!.at(-1)).toEqual({
        name: "add",
        description: "Add two integers",
        parameters: {
          type: "object",
          required: ["a", "b"],
          properties: {
            a: { type: "integer", description: "an integer", title: "int" },
            b: { type: "integer", description: "an integer", title: "int" },
          },
          additionalProperties: false,
        },
      })
    }))
})

describe("the step budget", () => {
  it.scopedLive("a model that keeps calling tools is stopped after maxSteps with turn/end {max-steps}", () =>
    Effect.gen(function*() {
      const call = (id: string) => [...C.toolCall(0, id, "list_files", "{}"), C.toolCalls()]
      const h = yield* setup([call("a"), call("b"), call("c")], { config: { maxSteps: 2 } })
      const updates = yield* h.prompt("loop")
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "max-steps" })
      expect(yield* h.requests).toHaveLength(2)
      const events = yield* h.events()
      expect(events.filter((e) => e.type === "tool/result")).toHaveLength(2)
      expect(events.at(-1)!.data).toEqual({ reason: "max-steps" })
    }))
})
