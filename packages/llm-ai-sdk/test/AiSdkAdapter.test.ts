// The adapter as a library user builds it: a Layer over any AI SDK language model value.
import { createAnthropic } from "@ai-sdk/anthropic"
import { createGoogleGenerativeAI } from "@ai-sdk/google"
import { createOpenAI } from "@ai-sdk/openai"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { LlmAdapter } from "@turnlog/llm/LlmAdapter"
import { ReplayDiagnostics } from "@turnlog/llm/ReplayDiagnostics"
import { AiSdkAdapter, AiSdkProviders } from "@turnlog/llm-ai-sdk"
import { finishOf, harnessOf, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

describe("AiSdkAdapter.layer over a LanguageModel value", () => {
  it("serves every request with that model; the envelope names the request's route and the model's wire", async () => {
    const model = createAnthropic({ baseURL: `${loopback.server.url}/v1`, apiKey: "sk-test-key" })("claude-test")
    const h = await harnessOf(AiSdkAdapter.layer(model, { modelInfo: { contextWindow: 200_000, maxTokens: 8_192 } }))
    loopback.server.enqueue({ blocks: [{ type: "text", text: "Hello from the loopback." }], responseId: "msg_01lib" })
    const chunks = await h.collect({ provider: "anthropic", model: "claude-test", messages: [user("u1", "Hi")], system: "Be brief." })
    expect(finishOf(chunks)).toEqual({
      type: "finish",
      reason: { kind: "stop" },
      replayState: {
        response: {
          kind: "ai-sdk",
          version: 1,
          provider: "anthropic",
          model: "claude-test",
          sdkProvider: "anthropic.messages",
          responseId: "msg_01lib",
          responseModel: "claude-test",
        },
        blocks: [{ type: "text" }],
      },
    })
    expect(loopback.server.requests().at(-1)!.body).toMatchObject({ model: "claude-test", system: [{ type: "text", text: "Be brief." }] })
    const info = await Effect.runPromise(
      Effect.map(LlmAdapter, (adapter) => adapter.modelInfo?.("anthropic", "claude-test")).pipe(
        Effect.provide(
          AiSdkAdapter.layer(model, { modelInfo: { contextWindow: 200_000, maxTokens: 8_192 } }).pipe(
            Layer.provide(Layer.succeed(ReplayDiagnostics, { report: () => Effect.void })),
          ),
        ),
      ),
    )
    expect(info).toEqual({ contextWindow: 200_000, maxTokens: 8_192 })
  })

  it("a requested reasoning effort becomes each provider's own setting on the wire", async () => {
    const anthropic = await harnessOf(AiSdkAdapter.layer(createAnthropic({ baseURL: `${loopback.server.url}/v1`, apiKey: "k" })("claude-test")))
    const openai = await harnessOf(AiSdkAdapter.layer(createOpenAI({ baseURL: `${loopback.server.url}/v1`, apiKey: "k" }).responses("o4-mini")))
    const google = await harnessOf(AiSdkAdapter.layer(createGoogleGenerativeAI({ baseURL: `${loopback.server.url}/v1beta`, apiKey: "k" })("gemini-test")))
    const ask = { provider: "p", model: "m", messages: [user("u1", "Think.")], reasoning: "high" as const, maxTokens: 20_000 }
    loopback.server.enqueue(...[1, 2, 3].map(() => ({ blocks: [{ type: "text" as const, text: "Done." }] })))
    await anthropic.collect(ask)
    expect(loopback.server.requests().at(-1)!.body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 16_384 } })
    await openai.collect(ask)
    expect(loopback.server.requests().at(-1)!.body).toMatchObject({
      store: false,
      include: ["reasoning.encrypted_content"],
      reasoning: { effort: "high", summary: "auto" },
    })
    await google.collect(ask)
    expect(loopback.server.requests().at(-1)!.body).toMatchObject({
      generationConfig: { thinkingConfig: { thinkingBudget: 16_384, includeThoughts: true } },
    })
  })
})

describe("AiSdkAdapter.layerConfig", () => {
  it("a bad config fails the layer with one sentence naming each bad field", async () => {
    const built = await Effect.runPromise(Effect.either(
      Layer.build(
        AiSdkAdapter.layerConfig({ providers: { local: { api: "openai-chatty", models: [{ id: "" }] } } }).pipe(
          Layer.provide(Layer.succeed(ReplayDiagnostics, { report: () => Effect.void })),
        ),
      ).pipe(Effect.scoped),
    ))
    expect(Either.isLeft(built) && built.left).toMatchObject({
      _tag: "AiSdkConfigError",
      message: expect.stringMatching(
        /^invalid ai-sdk provider config: providers\.local\.api: .*; providers\.local\.models\.0\.id: expected a non-empty string$/,
      ),
    })
  })

  it("a provider entry may name its adapter (as a shared config does); an unknown api is named", () => {
    const entry = { adapter: "ai-sdk", api: "anthropic-messages", models: [{ id: "claude-x" }] }
    expect(Either.isRight(AiSdkProviders.decodeConfig({ providers: { anthropic: entry } }))).toBe(true)
    const wrong = AiSdkProviders.decodeConfig({ providers: { anthropic: { ...entry, api: "mistral-conversations" } } })
    expect(Either.isLeft(wrong) && wrong.left.message).toMatch(/^invalid ai-sdk provider config: providers\.anthropic\.api: /)
  })
})

describe("AiSdkAdapter.unavailable", () => {
  it("names a route the config lacks and a key that is not set, before any request", async () => {
    const config = { providers: { local: { api: "anthropic-messages", apiKeyEnv: "LOCAL_KEY", models: [{ id: "m" }] } } }
    const check = (env: Record<string, string>, provider: string, model: string) =>
      Effect.runPromise(
        Effect.flatMap(LlmAdapter, (llm) => llm.unavailable!(provider, model)).pipe(
          Effect.provide(AiSdkAdapter.layerConfig(config, { env })),
          Effect.provide(Layer.succeed(ReplayDiagnostics, { report: () => Effect.void })),
        ),
      )
    expect(await check({}, "local", "m")).toEqual({ code: "MISSING_CREDENTIAL", message: 'no API key for provider "local": set LOCAL_KEY' })
    expect(await check({ LOCAL_KEY: "k" }, "local", "x")).toEqual({ code: "UNKNOWN_ROUTE", message: 'provider "local" has no model "x"' })
    expect(await check({ LOCAL_KEY: "k" }, "local", "m")).toBeUndefined()
  })
})
