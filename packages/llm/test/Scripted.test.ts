import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Option, Schema, Stream, TestClock } from "effect"
import { InvalidReplayState } from "@turnlog/history"
import { isTransient, type StreamChunk } from "@turnlog/protocol"
import { LlmAdapter, ReplayDiagnostics, Scripted } from "@turnlog/llm"
import { type Message, MessageId } from "@turnlog/protocol"

const text = (s: string): ReadonlyArray<StreamChunk> => [
  { type: "text-delta", index: 0, text: s },
  { type: "finish", reason: { kind: "stop" } },
]

describe("Scripted", () => {
  it.live("plays one chunk list per call, records each request, and ends in an error finish past the script", () =>
    Effect.gen(function*() {
      const scripted = yield* Scripted.make([text("one"), { chunks: text("two"), delayMs: 1 }])
      const request = { provider: "scripted", model: "demo", messages: [] }
      const run = (n: number) => Stream.runCollect(scripted.adapter.stream({ ...request, maxTokens: n })).pipe(Effect.map(Chunk.toArray))
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

describe("Scripted calls", () => {
  it.effect("a stalled call plays its chunks and stays open until it is interrupted", () =>
    Effect.gen(function*() {
      const scripted = yield* Scripted.make([{ chunks: text("half"), stall: true }])
      const seen: Array<StreamChunk> = []
      const fiber = yield* Effect.fork(Stream.runForEach(
        scripted.adapter.stream({ provider: "scripted", model: "demo", messages: [] }),
        (chunk) => Effect.sync(() => seen.push(chunk)),
      ))
      yield* TestClock.adjust("1 hour")
      expect(seen).toEqual(text("half"))
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("a script given as a function answers each request by its call number", () =>
    Effect.gen(function*() {
      const scripted = yield* Scripted.make((request, n) => (n < 2 ? text(`${request.model} ${n}`) : undefined))
      const run = Stream.runCollect(scripted.adapter.stream({ provider: "scripted", model: "m", messages: [] }))
      expect(Chunk.toArray(yield* run)).toEqual(text("m 0"))
      expect(Chunk.toArray(yield* run)).toEqual(text("m 1"))
      expect(Chunk.toArray(yield* run)[0]).toMatchObject({ reason: { kind: "error", failure: { code: "SCRIPT_EXHAUSTED" } } })
    }))

  it.effect("layerReplaying reconstructs each request's history with the codec first and reports what degraded", () =>
    Effect.gen(function*() {
      const collector = yield* ReplayDiagnostics.makeCollector
      const message: Message = {
        id: MessageId.make("msg_old"),
        role: "assistant",
        content: [{ type: "text", text: "before" }],
        source: { kind: "model", provider: "old", model: "m", replayState: { response: { kind: "test" } } },
      }
      const codec = {
        kind: "test",
        decode: () => InvalidReplayState.fail("not usable here"),
        foreign: (m: Message) => m.id,
      }
      const chunks = yield* Stream.runCollect(
        Stream.unwrap(Effect.map(LlmAdapter.LlmAdapter, (adapter) => adapter.stream({ provider: "new", model: "n", messages: [message] }))),
      ).pipe(
        Effect.provide(
          Scripted.layerReplaying([text("ok")], codec).pipe(
            Layer.provide(Layer.succeed(ReplayDiagnostics.ReplayDiagnostics, collector.service)),
          ),
        ),
      )
      expect(Chunk.toArray(chunks)).toEqual(text("ok"))
      expect(yield* collector.all).toEqual([{
        code: "INVALID_REPLAY_STATE",
        messageId: "msg_old",
        historicalRoute: "old/m",
        targetRoute: "new/n",
        reason: "not usable here",
      }])
    }))
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

describe("a scripted-model file", () => {
  it("still reads when a failure names a code this build does not know, and keeps the code as written", () => {
    const call = Schema.decodeUnknownSync(Scripted.ScriptedCall)({
      chunks: [{ type: "finish", reason: { kind: "error", failure: { message: "overloaded", code: "OVERLOADED", status: 529 } } }],
    })
    expect(call.chunks).toEqual([
      { type: "finish", reason: { kind: "error", failure: { message: "overloaded", code: "OVERLOADED", status: 529 } } },
    ])
    const finish = call.chunks[0]!
    expect(finish.type === "finish" && finish.reason.kind === "error" && isTransient(finish.reason.failure.code)).toBe(false)
  })
})
