/**
 * pi-ai's built-in catalog (about a megabyte of model tables) is built only
 * when a route needs it: a route of the config's own providers resolves, finds
 * its key and streams without it. Counted through the function that hands the
 * catalog out (in the command's build, the call runs the catalog's module:
 * `BuiltinCatalog.ts`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { PiAiRouting } from "@turnlog/llm-pi-ai"
import { Loopback } from "@turnlog/testkit"
import { loadCatalog } from "../src/internal/BuiltinCatalog.js"

const loads = { count: 0 }
const counted = () => {
  loads.count++
  return loadCatalog()
}

describe("pi-ai's catalog is built on first need", () => {
  it("a config's own route resolves, finds its key and streams without it; a built-in route builds it once", async () => {
    const server = await Loopback.start()
    try {
      server.enqueue({ blocks: [{ type: "text", text: "Hi there." }] })
      const config = Either.getOrThrow(PiAiRouting.decodeConfig({
        providers: { local: { api: "openai-completions", baseUrl: server.baseUrl("openai-completions"), apiKeyEnv: "LOCAL_KEY", models: [{ id: "small" }] } },
      }))
      loads.count = 0
      const router = PiAiRouting.make(config, { LOCAL_KEY: "sk-local", ANTHROPIC_API_KEY: "sk-ant" }, counted)
      const route = Either.getOrThrow(router.resolve("local", "small"))
      expect(await router.credential(route, new AbortController().signal)).toStrictEqual(Either.right({ secret: "sk-local" }))
      const events = router.streamSimple(route, { messages: [{ role: "user", content: "Hello", timestamp: 0 }] }, { apiKey: "sk-local" })
      const done = await events.result()
      expect(done.content).toStrictEqual([{ type: "text", text: "Hi there." }])
      expect(server.requests().length).toBe(1)
      expect(loads.count).toBe(0)

      const builtin = router.resolve("anthropic", "claude-sonnet-4-5")
      expect(Either.getOrThrow(builtin).model.api).toBe("anthropic-messages")
      expect(await router.credential(Either.getOrThrow(builtin), new AbortController().signal)).toStrictEqual(Either.right({ secret: "sk-ant" }))
      expect(router.models.getModel("local", "small")?.baseUrl).toBe(server.baseUrl("openai-completions"))
      expect(loads.count).toBe(1)
    } finally {
      await server.close()
    }
  })

  it("an unknown provider is looked for in the catalog", () => {
    loads.count = 0
    const router = PiAiRouting.make(Either.getOrThrow(PiAiRouting.decodeConfig({})), {}, counted)
    expect(router.resolve("nowhere", "x")).toStrictEqual(
      Either.left({ code: "UNKNOWN_ROUTE", message: "unknown provider nowhere (route nowhere/x)" }),
    )
    expect(loads.count).toBe(1)
  })
})
