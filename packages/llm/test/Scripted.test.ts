import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import type { StreamChunk } from "@turnlog/protocol"
import { LlmAdapter, ReplayDiagnostics, Scripted } from "@turnlog/llm"
import { MessageId } from "@turnlog/protocol"

const text = (s: string): ReadonlyArray<StreamChunk> => [
  { type: "text-delta", index: 0, text: s },
  { type: "finish", reason: { kind: "stop" } },
]

describe("Scripted", () => {
  it.live("plays one chunk list per call, records each request, and ends in an error finish past the script", () =>
    Effect.gen(function*() {
      const scripted = yield* Scripted.make([text("one"), { chunks: text("two"), delayMs: 1 }])
      const request = { provider: "scripted", model: "demo", messages: [] }
      const run = (n: number) =>
        Stream.runCollect(scripted.adapter.stream({ ...request, maxTokens: n })).pipe(Effect.map(Chunk.toArray))
      expect(yield* run(1)).toEqual(text("one"))
      expect(yield* run(2)).toEqual(text("two"))
      expect(yield* run(3)).toEqual([{
        type: "finish",
        reason: { kind: "error", failure: { code: "SCRIPT_EXHAUSTED", message: "the scripted model has no response for call 3" } },
      }])
      expect((yield* scripted.requests).map((r) => r.maxTokens)).toEqual([1, 2, 3])
    }))

  it.effect("is provided as the LlmAdapter service", () =>
    Effect.gen(function*() {
      const adapter = yield* LlmAdapter.LlmAdapter
      const chunks = yield* Stream.runCollect(adapter.stream({ provider: "scripted", model: "demo", messages: [] }))
      expect(Chunk.toArray(chunks)).toEqual(text("hi"))
    }).pipe(Effect.provide(Scripted.layerScripted([text("hi")]))))
})

describe("ReplayDiagnostics", () => {
  it("formats one line naming the session, the message, both routes and the reason", () => {
    expect(ReplayDiagnostics.format({
      code: "INVALID_REPLAY_STATE",
      messageId: MessageId.make("msg_1"),
      historicalRoute: "anthropic/claude",
      targetRoute: "openai/gpt",
      reason: "replay state version 1 is not supported",
    })).toBe(
      "INVALID_REPLAY_STATE: message msg_1 (anthropic/claude -> openai/gpt) sent as provider-neutral content: replay state version 1 is not supported",
    )
  })
})
