// The config's choice of adapter per provider: which entries each adapter
// gets, the usage error a bad choice is, the credentials the AI SDK adapter
// reads by default, and doctor judging each message by its own kind's codec.
import { Effect, Either, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { LlmAdapter, ReplayDiagnostics } from "@turnlog/llm"
import type { SessionLog } from "@turnlog/protocol"
import * as AdapterChoice from "../src/AdapterChoice.js"
import * as Doctor from "../src/commands/Doctor.js"
import * as Layers from "../src/Layers.js"
import * as Secrets from "../src/Secrets.js"
import type { Settings } from "../src/Settings.js"

const entry = (api: string, extra: Record<string, unknown> = {}) => ({
  api,
  baseUrl: "http://127.0.0.1:9/",
  apiKeyEnv: "LOCAL_KEY",
  models: [{ id: "m" }],
  ...extra,
})

const settings = (providers: unknown): Settings => ({
  home: "/nowhere",
  store: "jsonl",
  configFile: "/c/config.json",
  config: { providers },
})

describe("AdapterChoice.split", () => {
  it("gives pi-ai every entry without the field (the field stripped) and the AI SDK adapter the entries that name it", () => {
    const split = AdapterChoice.split({
      plain: entry("openai-completions"),
      named: entry("anthropic-messages", { adapter: "pi-ai" }),
      sdk: entry("openai-chat", { adapter: "ai-sdk" }),
    })
    expect(split).toEqual(Either.right({
      piAi: { plain: entry("openai-completions"), named: entry("anthropic-messages") },
      aiSdk: { sdk: entry("openai-chat", { adapter: "ai-sdk" }) },
    }))
  })

  it("names each entry whose adapter is neither", () => {
    expect(AdapterChoice.split({ a: entry("x", { adapter: "vercel" }), b: entry("x", { adapter: 3 }) })).toEqual(Either.left(
      'providers.a.adapter: expected "pi-ai" or "ai-sdk", got "vercel"; providers.b.adapter: expected "pi-ai" or "ai-sdk", got 3',
    ))
  })
})

describe("Layers.providerConfig", () => {
  const config = (providers: unknown) => Effect.runPromise(Effect.either(Layers.providerConfig(settings(providers))))

  it("checks each adapter's entries by its own schema", async () => {
    const ok = await config({ pi: entry("openai-completions", { adapter: "pi-ai" }), sdk: entry("google-generative-ai", { adapter: "ai-sdk" }) })
    expect(Either.map(ok, (c) => [Object.keys(c.piAi.providers ?? {}), Object.keys(c.aiSdk?.providers ?? {})])).toEqual(
      Either.right([["pi"], ["sdk"]]),
    )
    // openai-chat is a wire only the AI SDK adapter serves.
    const wrong = await config({ pi: entry("openai-chat") })
    expect(Either.isLeft(wrong) && wrong.left.message).toMatch(/^config file \/c\/config\.json: invalid pi-ai provider config: providers\.pi\.api: /)
    const bad = await config({ sdk: entry("anthropic", { adapter: "ai-sdk" }) })
    expect(Either.isLeft(bad) && bad.left.message).toMatch(/^config file \/c\/config\.json: invalid ai-sdk provider config: providers\.sdk\.api: /)
    // The README's example: a key from the package's default variable, the package's default URL.
    const readme = await config({
      claude: {
        adapter: "ai-sdk",
        api: "anthropic-messages",
        apiKeyEnv: "ANTHROPIC_API_KEY",
        models: [{ id: "claude-sonnet-4-5", contextWindow: 200000, maxTokens: 64000 }],
      },
    })
    expect(Either.map(readme, (c) => Object.keys(c.aiSdk?.providers ?? {}))).toEqual(Either.right(["claude"]))
    const unknown = await config({ sdk: entry("openai-chat", { adapter: "pi" }) })
    expect(Either.isLeft(unknown) && unknown.left.message).toBe(
      'config file /c/config.json: providers.sdk.adapter: expected "pi-ai" or "ai-sdk", got "pi"',
    )
  })

  it("decodes one settings value once: the check, the models offered and the adapters read the same configs", async () => {
    const once = settings({ pi: entry("openai-completions"), sdk: entry("google-generative-ai", { adapter: "ai-sdk" }) })
    const first = await Effect.runPromise(Layers.providerConfig(once))
    const again = await Effect.runPromise(Layers.providerConfig(once))
    expect(again).toBe(first)
    expect(again.aiSdk).toBe(first.aiSdk)
    // Another settings value (another config file) is decoded on its own.
    const other = await Effect.runPromise(Layers.providerConfig(settings({ pi: entry("openai-completions") })))
    expect(other).not.toBe(first)
    expect(Object.keys(other.piAi.providers ?? {})).toEqual(["pi"])
  })
})

describe("a built-in provider given to the AI SDK adapter by name", () => {
  it("gets its wire, its key's variable and pi-ai's catalog of its models", async () => {
    const configs = await Effect.runPromise(Layers.providerConfig(settings({ anthropic: { adapter: "ai-sdk" }, google: { adapter: "pi-ai" } })))
    expect(configs.piAi.providers).toEqual({})
    const anthropic = configs.aiSdk?.providers["anthropic"]
    expect({ api: anthropic?.api, apiKeyEnv: anthropic?.apiKeyEnv }).toEqual({ api: "anthropic-messages", apiKeyEnv: "ANTHROPIC_API_KEY" })
    expect(anthropic?.models.find((m) => m.id === "claude-sonnet-4-5")).toMatchObject({ contextWindow: 200000 })
  })

  it("is not offered to an editor model by model (its catalog is pi-ai's), a declared provider is", () => {
    const config = { anthropic: { adapter: "ai-sdk" }, sdk: entry("openai-chat", { adapter: "ai-sdk" }) }
    expect(Object.keys(AdapterChoice.declared({ anthropic: 1, sdk: 2 }, config))).toEqual(["sdk"])
  })

  it("is served by the AI SDK adapter: its requests, and the key it asks for", async () => {
    const saved = process.env.ANTHROPIC_API_KEY
    delete process.env.ANTHROPIC_API_KEY
    try {
      const choice = { kind: "provider", route: "anthropic/claude-sonnet-4-5" } as const
      const unavailable = await Effect.runPromise(
        Effect.flatMap(LlmAdapter.LlmAdapter, (llm) => llm.unavailable!("anthropic", "claude-sonnet-4-5")).pipe(
          Effect.provide(Layers.modelLayer(settings({ anthropic: { adapter: "ai-sdk" } }), choice)),
          Effect.provide(ReplayDiagnostics.layerSilent),
        ),
      )
      // The AI SDK adapter's wording; pi-ai would say "no credential for anthropic/claude-sonnet-4-5: …".
      expect(unavailable).toEqual({ code: "MISSING_CREDENTIAL", message: 'no API key for provider "anthropic": set ANTHROPIC_API_KEY' })
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved
    }
  })
})

describe("Layers.modelLayer", () => {
  it("refuses a model an AI SDK provider does not declare, before any session", async () => {
    const built = await Effect.runPromise(Effect.either(Effect.scoped(
      Layer.build(
        Layers.modelLayer(settings({ sdk: entry("openai-chat", { adapter: "ai-sdk" }) }), { kind: "provider", route: "sdk/other" }),
      ).pipe(Effect.provide(ReplayDiagnostics.layerSilent)),
    )))
    expect(Either.isLeft(built) && built.left.message).toBe('model sdk/other: provider "sdk" has no model "other"')
  })
})

describe("Secrets", () => {
  it("keeps the AI SDK's Google key out of commands and redacts it", () => {
    const secrets = Secrets.of(settings(undefined), { GOOGLE_GENERATIVE_AI_API_KEY: "g-secret-0123456789", PATH: "/bin" })
    expect(secrets.commandEnv).toEqual({ PATH: "/bin" })
    expect(secrets.redactor.secrets).toContain("g-secret-0123456789")
  })
})

describe("doctor", () => {
  const route = { provider: "loop", model: "m" }
  const assistant = (id: string, replayState: unknown) => ({
    type: "assistant/message",
    data: {
      message: { id, role: "assistant", content: [{ type: "text", text: "Here." }], source: { kind: "model", ...route, replayState } },
      finish: { kind: "stop" },
    },
  })
  const piAi = { response: { kind: "pi-ai", version: 2, api: "anthropic-messages", ...route, stopReason: "stop" }, blocks: [{ type: "text" }] }
  const aiSdk = { response: { kind: "ai-sdk", version: 1, ...route, sdkProvider: "anthropic.messages" }, blocks: [{ type: "text" }] }
  const events = [
    { type: "turn/start", data: {} },
    assistant("a1", piAi),
    assistant("a2", aiSdk),
    assistant("a3", { ...aiSdk, blocks: [] }),
    { type: "turn/end", data: { reason: "completed" } },
  ].map((e, i) => ({ seq: i + 1, time: "2026-01-01T00:00:01.000Z", ...e })) as unknown as ReadonlyArray<SessionLog.SessionEvent>

  it("judges each message by the codec of the adapter that wrote it", () => {
    const report = Doctor.diagnose({
      header: { type: "session", version: 1, id: "s1" as SessionLog.SessionHeader["id"], createdAt: "2026-01-01T00:00:00.000Z", cwd: "/w" },
      events,
      recovery: {},
    })
    expect(report.messages.map((m) => [m.messageId, m.replay, m.reason])).toEqual([
      ["a1", "native", undefined],
      ["a2", "native", undefined],
      ["a3", "degrades", "replay state has 0 block entries but the message has 1 blocks"],
    ])
  })
})
