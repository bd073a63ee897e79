// The answer room the adapter reports is the answer budget its request
// carries on the wire, for every api: the loop decides with the arithmetic
// the wire uses (pi-ai's clamp of max_tokens to what is left of the window).
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { LlmAdapter, type LlmRequest } from "@turnlog/llm/LlmAdapter"
import { ReplayDiagnostics } from "@turnlog/llm"
import { PiAiAdapter } from "@turnlog/llm-pi-ai"
import { Loopback, OutputLimit } from "@turnlog/testkit"
import { APIS, KEY, KEY_ENV, MODEL, providerOf, user } from "./harness.js"

const WINDOW = 16_384
const MAX_TOKENS = 4_096

const adapterFor = (server: Loopback.Server) =>
  Effect.provide(
    LlmAdapter,
    PiAiAdapter.layerPiAi({
      providers: Object.fromEntries(APIS.map((api) => [providerOf(api), {
        api,
        baseUrl: server.baseUrl(api),
        apiKeyEnv: KEY_ENV,
        models: [{ id: MODEL, contextWindow: WINDOW, maxTokens: MAX_TOKENS }],
      }])),
    }, { env: { [KEY_ENV]: KEY } }).pipe(Layer.provide(ReplayDiagnostics.layerSilent)),
  )

/** A request of about `chars` characters of prompt, with a system prompt and a tool. */
const requestOf = (api: (typeof APIS)[number], chars: number): LlmRequest => ({
  provider: providerOf(api),
  model: MODEL,
  system: "You answer briefly.",
  tools: [{ name: "read_file", description: "Reads a file.", parameters: { type: "object", properties: { path: { type: "string" } } } }],
  messages: [user("u1", "x".repeat(chars))],
})

describe.each(APIS)("over the %s wire", (api) => {
  it.scopedLive("answerRoom is the max tokens the request carries: the model's while it fits, less when the window is filling", () =>
    Effect.gen(function*() {
      const server = yield* Loopback.make
      const adapter = yield* adapterFor(server)
      // 7,000 characters leave the answer its 4,096 tokens; 35,000 (10,000 of pi-ai's tokens) leave 2,2xx.
      for (const chars of [7_000, 35_000]) {
        const request = requestOf(api, chars)
        const room = yield* adapter.answerRoom!(request)
        server.enqueue({ blocks: [{ type: "text", text: "ok" }] })
        yield* Stream.runCollect(adapter.stream(request)).pipe(Effect.map(Chunk.toReadonlyArray))
        expect(OutputLimit.requested(server.requests().at(-1)!.body)).toBe(room)
      }
      const [roomy, filling] = yield* Effect.forEach([7_000, 35_000], (chars) => adapter.answerRoom!(requestOf(api, chars)))
      expect(roomy).toBe(MAX_TOKENS)
      expect(filling).toBeGreaterThan(2_000)
      expect(filling).toBeLessThan(2_300)
    }))
})

describe("a route the adapter does not know", () => {
  it.scopedLive("has no answer room to tell", () =>
    Effect.gen(function*() {
      const server = yield* Loopback.make
      const adapter = yield* adapterFor(server)
      expect(yield* adapter.answerRoom!({ provider: "nowhere", model: "none", messages: [] })).toBe(undefined)
    }))
})
