// The adapter's model facts carry the catalog's prices (per million tokens)
// when the entry has them, and none for a model the config declares without.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { LlmAdapter } from "@turnlog/llm/LlmAdapter"
import { ReplayDiagnostics } from "@turnlog/llm"
import { PiAiAdapter } from "@turnlog/llm-pi-ai"

const adapter = Effect.provide(
  LlmAdapter,
  PiAiAdapter.layerPiAi({
    providers: {
      local: { api: "openai-completions", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "LOCAL_KEY", models: [{ id: "small" }] },
    },
  }, { env: { ANTHROPIC_API_KEY: "k", LOCAL_KEY: "k" } }).pipe(Layer.provide(ReplayDiagnostics.layerSilent)),
)

describe("model prices", () => {
  it.effect("a catalog model has its prices; a declared model without prices has none", () =>
    Effect.gen(function*() {
      const a = yield* adapter
      expect(a.modelInfo?.("anthropic", "claude-sonnet-4-5")?.cost).toMatchObject({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 })
      const local = a.modelInfo?.("local", "small")
      expect(local?.contextWindow).toBeGreaterThan(0)
      expect(local?.cost).toBeUndefined()
    }))
})
