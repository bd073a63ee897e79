// The regression the project exists for, with the scripted model: a response
// cut off at the output limit while a tool call streams must leave a log the
// next request can be built from, and the tool call must never run.
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { StreamChunk } from "@turnlog/protocol"
import * as C from "./support/chunks.js"
import { chunksOf, DEFAULT_MODEL, ONE_STEP_TURN, outline, setup, updateTypes } from "./support/harness.js"

const envelope = {
  response: { kind: "test", responseId: "resp_1" },
  blocks: [{ type: "text", sig: "t-sig" }, { type: "tool-call", sig: "c-sig" }],
}

const turn1: ReadonlyArray<StreamChunk> = [
  ...C.text(0, "I will write ", "the file."),
  ...C.openToolCall(1, "call_1", "write_file", `{"path": "out.txt", "content": "par`),
  C.usage(120, 4096),
  C.finish({ kind: "max-tokens" }, envelope),
]

describe("a response cut off at max-tokens while a tool call streams", () => {
  it.scopedLive("is stored as its text with the pruned envelope, runs nothing, and the session continues", () =>
    Effect.gen(function*() {
      const h = yield* setup([turn1, C.reply("Done.")])

      const updates = yield* h.prompt("write out.txt")
      expect(updates).toEqual([
        { type: "turn-start" },
        { type: "text-delta", text: "I will write " },
        { type: "text-delta", text: "the file." },
        { type: "usage", usage: { inputTokens: 120, outputTokens: 4096 } },
        { type: "turn-end", reason: "max-tokens" },
      ])

      const events = yield* h.events()
      expect(outline(events)).toEqual(ONE_STEP_TURN)
      // Every raw chunk, in order, the finish chunk with its envelope unpruned.
      expect(chunksOf(events)).toEqual(turn1)
      const stored = events.find((e) => e.type === "assistant/message")!
      expect(stored.data).toEqual({
        message: {
          id: expect.stringMatching(/^msg_/),
          role: "assistant",
          content: [{ type: "text", text: "I will write the file." }],
          source: {
            kind: "model",
            provider: "scripted",
            model: "test-model",
            replayState: { response: envelope.response, blocks: [envelope.blocks[0]] },
          },
        },
        finish: { kind: "max-tokens" },
        usage: { inputTokens: 120, outputTokens: 4096 },
      })
      expect(events.some((e) => e.type === "tool/call" || e.type === "tool/result")).toBe(false)
      expect(events[events.length - 1]!.data).toEqual({ reason: "max-tokens" })
      expect(h.questions).toEqual([])
      expect(fs.existsSync(path.join(h.cwd, "out.txt"))).toBe(false)

      // Turn 2 is built from that log: the text with the pruned envelope, no tool call.
      const updates2 = yield* h.prompt("go on")
      expect(updateTypes(updates2)).toEqual(["turn-start", "text-delta", "turn-end"])
      expect(updates2[2]).toEqual({ type: "turn-end", reason: "completed" })
      const requests = yield* h.requests
      expect(requests).toHaveLength(2)
      expect(requests[1]!.messages.map((m) => ({ role: m.role, content: m.content, source: m.source }))).toEqual([
        { role: "user", content: [{ type: "text", text: "write out.txt" }], source: { kind: "user" } },
        {
          role: "assistant",
          content: [{ type: "text", text: "I will write the file." }],
          source: stored.data.message.source,
        },
        { role: "user", content: [{ type: "text", text: "go on" }], source: { kind: "user" } },
      ])
      expect(requests[1]!.messages[1]!.id).toBe(stored.data.message.id)
      expect(requests[1]).toMatchObject({ provider: "scripted", model: "test-model", sessionId: h.id })
      expect(`${requests[1]!.provider}/${requests[1]!.model}`).toBe(DEFAULT_MODEL)
      const last = (yield* h.events()).at(-1)!
      expect(last.data).toEqual({ reason: "completed" })
    }))

  it.scopedLive("a response that is only a truncated tool call is stored empty and left out of the next request", () =>
    Effect.gen(function*() {
      const cut: ReadonlyArray<StreamChunk> = [
        ...C.openToolCall(0, "call_9", "run_command", `{"command": "rm -`),
        C.finish({ kind: "max-tokens" }, { response: { r: 1 }, blocks: [{ type: "tool-call" }] }),
      ]
      const h = yield* setup([cut, C.reply("ok")])
      yield* h.prompt("clean up")
      const message = (yield* h.events()).find((e) => e.type === "assistant/message")!
      expect(message.data.message.content).toEqual([])
      expect(message.data.message.source).toEqual({
        kind: "model",
        provider: "scripted",
        model: "test-model",
        replayState: { response: { r: 1 }, blocks: [] },
      })
      expect(h.ops.some((op) => op.startsWith("ask"))).toBe(false)
      yield* h.prompt("again")
      const requests = yield* h.requests
      expect(requests[1]!.messages.map((m) => m.role)).toEqual(["user", "user"])
    }))
})
