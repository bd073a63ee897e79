// Tools one session has beyond the registry's (an editor's MCP servers): sent
// to the model and callable in that session only, logged like any tool, and
// kept when the session is reopened.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as Tools from "../src/Tools.js"
import * as C from "./support/chunks.js"
import { setup, shapes, tempDir } from "./support/harness.js"

const shout = Tools.define({
  name: "srv__shout",
  description: "Says it louder",
  parameters: Schema.Struct({ text: Schema.String }),
  display: { kind: "other", title: (args) => `Shout ${args.text}` },
  prepare: (args) => Effect.succeed({ run: Effect.succeed(args.text.toUpperCase()) }),
})

const toolNames = (request: { readonly tools?: ReadonlyArray<{ readonly name: string }> }) => (request.tools ?? []).map((t) => t.name)

describe("per-session tools", () => {
  it.scopedLive("join the built-ins for their session only, and their calls are logged as tool/call and tool/result", () =>
    Effect.gen(function*() {
      const args = JSON.stringify({ text: "hi" })
      const h = yield* setup([
        [...C.toolCall(0, "call_1", "srv__shout", args), C.toolCalls()],
        C.reply("done"),
        [...C.toolCall(0, "call_2", "srv__shout", args), C.toolCalls()],
        C.reply("no such tool here"),
      ])
      const own = yield* h.loop.createSession({ cwd: h.cwd, tools: [shout] })
      const updates = yield* h.prompt("shout hi", own)
      expect(updates).toContainEqual({ type: "tool-result", callId: "call_1", name: "srv__shout", content: "HI", isError: false })
      const builtins = ["read_file", "list_files", "edit_file", "write_file", "run_command", "todo"]
      expect(toolNames((yield* h.requests)[0]!)).toEqual([...builtins, "srv__shout"])
      expect(shapes(yield* h.events(own)).filter((e) => e.type.startsWith("tool/"))).toEqual([
        { type: "tool/call", data: { callId: "call_1", name: "srv__shout", arguments: args } },
        {
          type: "tool/result",
          data: {
            message: {
              id: expect.stringMatching(/^msg_/),
              role: "user",
              source: { kind: "tool", callId: "call_1" },
              content: [{ type: "tool-result", toolCallId: "call_1", content: "HI" }],
            },
          },
        },
      ])

      // Another session of the same loop has only the built-ins.
      const plain = yield* h.loop.createSession({ cwd: h.cwd })
      const other = yield* h.prompt("shout hi", plain)
      expect(toolNames((yield* h.requests)[2]!)).toEqual(builtins)
      expect(other).toContainEqual({
        type: "tool-result",
        callId: "call_2",
        name: "srv__shout",
        content: `unknown tool "srv__shout"`,
        isError: true,
      })
    }))

  it.scopedLive("a reopened session keeps its tools unless load gives others; an empty list takes them away", () =>
    Effect.gen(function*() {
      const h = yield* setup([C.reply("one"), C.reply("two"), C.reply("three")])
      const cwd = yield* tempDir()
      const id = yield* h.loop.createSession({ cwd, tools: [shout] })
      yield* h.prompt("one", id)
      yield* h.loop.load(id)
      yield* h.prompt("two", id)
      yield* h.loop.load(id, { tools: [] })
      yield* h.prompt("three", id)
      expect((yield* h.requests).map((r) => toolNames(r).includes("srv__shout"))).toEqual([true, true, false])
    }))
})
