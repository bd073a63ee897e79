import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { LlmAdapter, Routed } from "@turnlog/llm"
import type { Service } from "@turnlog/llm/LlmAdapter"
import type { StreamChunk } from "@turnlog/protocol"

/** An adapter that answers with its own name and knows one model fact, so a test can tell who served. */
const named = (name: string, window: number): Service => ({
  stream: () => Stream.make<Array<StreamChunk>>({ type: "text-delta", index: 0, text: name }, { type: "finish", reason: { kind: "stop" } }),
  modelInfo: () => ({ contextWindow: window, maxTokens: 1 }),
  unavailable: (provider) => Effect.succeed({ code: "UNKNOWN_ROUTE", message: `${name} refuses ${provider}` }),
})

const answerOf = (adapter: Service, provider: string) =>
  Stream.runCollect(adapter.stream({ provider, model: "m", messages: [] })).pipe(
    Effect.map((chunks) => Chunk.toArray(chunks).flatMap((c) => (c.type === "text-delta" ? [c.text] : [])).join("")),
  )

describe("Routed", () => {
  it.effect("sends each provider's requests, model facts and availability to its adapter, every other to the default", () =>
    Effect.gen(function*() {
      const adapter = Routed.make({ fallback: named("pi-ai", 100), byProvider: new Map([["sdk", named("ai-sdk", 200)]]) })
      expect(yield* answerOf(adapter, "sdk")).toBe("ai-sdk")
      expect(yield* answerOf(adapter, "anthropic")).toBe("pi-ai")
      expect(adapter.modelInfo!("sdk", "m")?.contextWindow).toBe(200)
      expect(adapter.modelInfo!("other", "m")?.contextWindow).toBe(100)
      expect(yield* adapter.unavailable!("sdk", "m")).toEqual({ code: "UNKNOWN_ROUTE", message: "ai-sdk refuses sdk" })
      // An adapter without an answer-room estimate leaves it to the loop.
      expect(yield* adapter.answerRoom!({ provider: "sdk", model: "m", messages: [] })).toBeUndefined()
    }))

  it.effect("builds the routes' adapters from their layers beside the default one", () =>
    Effect.gen(function*() {
      const adapter = yield* LlmAdapter.LlmAdapter
      expect(yield* answerOf(adapter, "a")).toBe("first")
      expect(yield* answerOf(adapter, "b")).toBe("first")
      expect(yield* answerOf(adapter, "c")).toBe("default")
    }).pipe(Effect.provide(Routed.layer(Layer.succeed(LlmAdapter.LlmAdapter, named("default", 1)), [
      { providers: ["a", "b"], adapter: Layer.succeed(LlmAdapter.LlmAdapter, named("first", 2)) },
    ]))))
})
