// A custom provider without `apiKeyEnv` (a local server that needs no key):
// its requests go out with no credential required from the environment.
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Layer, Stream } from "effect"
import { LlmAdapter } from "@turnlog/llm/LlmAdapter"
import { makeCollector, ReplayDiagnostics } from "@turnlog/llm/ReplayDiagnostics"
import { PiAiAdapter, PiAiRouting } from "@turnlog/llm-pi-ai"
import { Loopback } from "@turnlog/testkit"
import { user } from "./harness.js"

describe("a custom provider without apiKeyEnv", () => {
  it("is accepted, needs no credential, and answers", async () => {
    const server = await Loopback.start({ replies: [{ blocks: [{ type: "text", text: "local answer" }] }] })
    try {
      const config = {
        providers: { local: { api: "openai-completions", baseUrl: server.baseUrl("openai-completions"), models: [{ id: "m" }] } },
      } as const
      const decoded = Either.getOrThrow(PiAiRouting.decodeConfig(config))
      const router = PiAiRouting.make(decoded, {})
      const route = Either.getOrThrow(router.resolve("local", "m"))
      expect(await router.credential(route, new AbortController().signal)).toStrictEqual(Either.right({}))

      const collector = await Effect.runPromise(makeCollector)
      const chunks = await Effect.runPromise(
        Effect.flatMap(LlmAdapter, (adapter) => Stream.runCollect(adapter.stream({ provider: "local", model: "m", messages: [user("u1", "hi")] }))).pipe(
          Effect.provide(
            PiAiAdapter.layerPiAi(decoded, { env: {} }).pipe(
              Layer.provide(Layer.succeed(ReplayDiagnostics, collector.service)),
            ),
          ),
          Effect.map(Chunk.toReadonlyArray),
        ),
      )
      const text = chunks.flatMap((c) => (c.type === "text-delta" ? [c.text] : [])).join("")
      expect({ text, finish: chunks.at(-1) }).toMatchObject({ text: "local answer", finish: { type: "finish", reason: { kind: "stop" } } })
      expect(server.requests()).toHaveLength(1)
    } finally {
      await server.close()
    }
  })
})
