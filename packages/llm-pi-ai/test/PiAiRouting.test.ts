import { describe, expect, it } from "@effect/vitest"
import { getBuiltinModels } from "@earendil-works/pi-ai/providers/all"
import { Either } from "effect"
import { PiAiRouting } from "@turnlog/llm-pi-ai"

const config = {
  providers: {
    local: {
      api: "openai-completions",
      baseUrl: "http://127.0.0.1:9/v1",
      apiKeyEnv: "TURNLOG_TEST_LOCAL_KEY",
      models: [{ id: "qwen3", contextWindow: 32_000, maxTokens: 4_096, reasoning: true }, { id: "tiny" }],
    },
  },
} as const

const decoded = Either.getOrThrow(PiAiRouting.decodeConfig(config))
const signal = new AbortController().signal

describe("PiAiRouting.decodeConfig", () => {
  it("accepts the documented shape, and no providers at all", () => {
    expect(decoded).toEqual(config)
    expect(Either.isRight(PiAiRouting.decodeConfig({}))).toBe(true)
  })

  it.each([
    [{ providers: { local: { ...config.providers.local, api: "carrier-pigeon" } } }, "providers.local.api: Expected"],
    [{ providers: { local: { ...config.providers.local, baseUrl: "" } } }, "providers.local.baseUrl: expected a non-empty string"],
    [{ providers: { local: { ...config.providers.local, apiKeyEnv: "" } } }, "providers.local.apiKeyEnv:"],
    [{ providers: { local: { ...config.providers.local, models: [{ id: "" }] } } }, "providers.local.models.0.id: expected a non-empty string"],
    [
      { providers: { local: { ...config.providers.local, models: [{ id: "x", maxTokens: 1.5 }] } } },
      "providers.local.models.0.maxTokens: expected a positive integer",
    ],
    [{ providers: { "a/b": config.providers.local } }, "providers.a/b: is unexpected"],
    [{ providers: { local: { ...config.providers.local, apiKey: "sk-inline" } } }, "providers.local.apiKey:"],
    [
      { providers: { local: { ...config.providers.local, baseUrl: "https://me:hunter2@proxy.example/v1" } } },
      "providers.local.baseUrl: a URL with a user name or password is refused; put the key in the environment variable that apiKeyEnv names",
    ],
  ])("a bad field is named: %#", (input, fragment) => {
    const result = PiAiRouting.decodeConfig(input)
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      expect(result.left._tag).toBe("PiAiConfigError")
      expect(result.left.message).toContain(fragment)
      expect(result.left.message).not.toContain("hunter2")
    }
  })
})

describe("PiAiRouting: routes", () => {
  const router = PiAiRouting.make(decoded, {})
  const builtin = getBuiltinModels("anthropic")[0]!

  it("a custom provider's model, with its limits and the provider's api and base URL", () => {
    const route = Either.getOrThrow(router.resolve("local", "qwen3"))
    expect(route.id).toBe("local/qwen3")
    expect(route.model).toMatchObject({
      id: "qwen3",
      provider: "local",
      api: "openai-completions",
      baseUrl: "http://127.0.0.1:9/v1",
      contextWindow: 32_000,
      maxTokens: 4_096,
      reasoning: true,
    })
    expect(Either.getOrThrow(router.resolve("local", "tiny")).model.reasoning).toBe(false)
  })

  it("a built-in model from pi-ai's catalog", () => {
    const route = Either.getOrThrow(router.resolve("anthropic", builtin.id))
    expect(route.model.api).toBe("anthropic-messages")
    expect(route.id).toBe(`anthropic/${builtin.id}`)
  })

  it("looks a route's model up once, however many requests and budget checks ask", () => {
    const fresh = PiAiRouting.make(decoded, {})
    // A lookup makes a new route: the same object again is the one kept.
    const first = Either.getOrThrow(fresh.resolve("anthropic", builtin.id))
    expect(Either.getOrThrow(fresh.resolve("anthropic", builtin.id))).toBe(first)
    expect(Either.getOrThrow(fresh.resolve("anthropic", builtin.id))).toBe(first)
    const local = Either.getOrThrow(fresh.resolve("local", "qwen3"))
    expect(Either.getOrThrow(fresh.resolve("local", "qwen3"))).toBe(local)
    expect(Either.getOrThrow(fresh.resolve("local", "tiny"))).not.toBe(local)
  })

  it("the whole list holds the catalog and the config's providers, a config's provider in place of a built-in one of its id", () => {
    const replacing = Either.getOrThrow(PiAiRouting.decodeConfig({
      providers: { anthropic: { api: "anthropic-messages", baseUrl: "http://127.0.0.1:9", models: [{ id: "house-model" }] } },
    }))
    const own = PiAiRouting.make(replacing, {})
    expect(own.models.getModels("anthropic").map((m) => m.id)).toEqual(["house-model"])
    expect(own.models.getModels("openai").length).toBe(getBuiltinModels("openai").length)
    expect(Either.getOrThrow(own.resolve("anthropic", "house-model")).model.baseUrl).toBe("http://127.0.0.1:9")
    expect(own.resolve("anthropic", builtin.id)).toStrictEqual(
      Either.left({ code: "UNKNOWN_ROUTE", message: `provider anthropic has no model ${builtin.id}` }),
    )
    expect(router.models.getModels("local").map((m) => m.id)).toEqual(["qwen3", "tiny"])
  })

  it("an unknown provider or model is an UNKNOWN_ROUTE failure", () => {
    expect(router.resolve("nowhere", "x")).toStrictEqual(
      Either.left({ code: "UNKNOWN_ROUTE", message: "unknown provider nowhere (route nowhere/x)" }),
    )
    expect(router.resolve("local", "huge")).toStrictEqual(
      Either.left({ code: "UNKNOWN_ROUTE", message: "provider local has no model huge" }),
    )
  })
})

describe("PiAiRouting: credentials", () => {
  it("a custom provider's key comes from its variable; missing names the variable", async () => {
    const route = Either.getOrThrow(PiAiRouting.make(decoded, {}).resolve("local", "qwen3"))
    expect(await PiAiRouting.make(decoded, {}).credential(route, signal)).toStrictEqual(Either.left({
      code: "MISSING_CREDENTIAL",
      message: "no credential for local/qwen3: set the environment variable TURNLOG_TEST_LOCAL_KEY",
    }))
    expect(await PiAiRouting.make(decoded, { TURNLOG_TEST_LOCAL_KEY: "  " }).credential(route, signal))
      .toMatchObject(Either.left({ code: "MISSING_CREDENTIAL" }))
    expect(await PiAiRouting.make(decoded, { TURNLOG_TEST_LOCAL_KEY: "k-1" }).credential(route, signal))
      .toStrictEqual(Either.right({ secret: "k-1" }))
  })

  it("a built-in provider's key comes from pi-ai's lookup; missing names its API-key variable", async () => {
    const id = getBuiltinModels("openai")[0]!.id
    const none = PiAiRouting.make(decoded, {})
    const route = Either.getOrThrow(none.resolve("openai", id))
    expect(await none.credential(route, signal)).toStrictEqual(Either.left({
      code: "MISSING_CREDENTIAL",
      message: `no credential for openai/${id}: set the environment variable OPENAI_API_KEY`,
    }))
    const some = PiAiRouting.make(decoded, { OPENAI_API_KEY: "sk-test" })
    expect(await some.credential(route, signal)).toStrictEqual(Either.right({ secret: "sk-test" }))
  })
})
