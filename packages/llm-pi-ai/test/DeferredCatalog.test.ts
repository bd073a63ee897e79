/**
 * pi-ai's built-in providers are made only when a route needs one, and its
 * whole catalog (about a megabyte of model tables) only when every model is
 * wanted: a route of the config's own providers resolves, finds its key and
 * streams without any of it; a built-in route makes its own provider alone.
 * Counted through the functions that hand them out (in the command's build,
 * the first call runs the provider's module: `BuiltinCatalog.ts`).
 */
import { getBuiltinProviders } from "@earendil-works/pi-ai/providers/all"
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { PiAiRouting } from "@turnlog/llm-pi-ai"
import { Loopback } from "@turnlog/testkit"
import { loadCatalog, PROVIDERS } from "../src/internal/BuiltinCatalog.js"

const made: Array<string> = []
const counted: PiAiRouting.Builtins = {
  catalog: () => {
    made.push("catalog")
    return loadCatalog()
  },
  providers: new Map([...PROVIDERS].map(([id, factory]) => [id, () => {
    made.push(id)
    return factory()
  }])),
}

describe("pi-ai's providers are made on first need", () => {
  it("a config's own route resolves, finds its key and streams without them; a built-in route makes its provider alone, once", async () => {
    const server = await Loopback.start()
    try {
      server.enqueue({ blocks: [{ type: "text", text: "Hi there." }] })
      const config = Either.getOrThrow(PiAiRouting.decodeConfig({
        providers: { local: { api: "openai-completions", baseUrl: server.baseUrl("openai-completions"), apiKeyEnv: "LOCAL_KEY", models: [{ id: "small" }] } },
      }))
      made.length = 0
      const router = PiAiRouting.make(config, { LOCAL_KEY: "sk-local", ANTHROPIC_API_KEY: "sk-ant" }, counted)
      const route = Either.getOrThrow(router.resolve("local", "small"))
      expect(await router.credential(route, new AbortController().signal)).toStrictEqual(Either.right({ secret: "sk-local" }))
      const events = router.streamSimple(route, { messages: [{ role: "user", content: "Hello", timestamp: 0 }] }, { apiKey: "sk-local" })
      const done = await events.result()
      expect(done.content).toStrictEqual([{ type: "text", text: "Hi there." }])
      expect(server.requests().length).toBe(1)
      expect(made).toStrictEqual([])

      const builtin = router.resolve("anthropic", "claude-sonnet-4-5")
      expect(Either.getOrThrow(builtin).model.api).toBe("anthropic-messages")
      expect(await router.credential(Either.getOrThrow(builtin), new AbortController().signal)).toStrictEqual(Either.right({ secret: "sk-ant" }))
      expect(Either.getOrThrow(router.resolve("anthropic", "claude-haiku-4-5")).id).toBe("anthropic/claude-haiku-4-5")
      expect(made).toStrictEqual(["anthropic"])
      // The whole list: the catalog, with the config's providers in it.
      expect(router.models.getModel("local", "small")?.baseUrl).toBe(server.baseUrl("openai-completions"))
      expect(router.models.getModels("openai").length).toBeGreaterThan(0)
      expect(made).toStrictEqual(["anthropic", "catalog"])
    } finally {
      await server.close()
    }
  })

  it("an unknown provider is looked for in the catalog", () => {
    made.length = 0
    const router = PiAiRouting.make(Either.getOrThrow(PiAiRouting.decodeConfig({})), {}, counted)
    expect(router.resolve("nowhere", "x")).toStrictEqual(
      Either.left({ code: "UNKNOWN_ROUTE", message: "unknown provider nowhere (route nowhere/x)" }),
    )
    expect(made).toStrictEqual(["catalog"])
  })

  it("holds a factory for each of pi-ai's built-in providers, each making the provider of its id", () => {
    expect([...PROVIDERS.keys()].sort()).toStrictEqual([...getBuiltinProviders()].sort())
    for (const [id, factory] of PROVIDERS) expect(factory()().id).toBe(id)
  })
})
