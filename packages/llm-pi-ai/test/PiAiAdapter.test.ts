/**
 * The adapter's own contract: failures before any HTTP call, a key that goes
 * out in the request and never into a chunk, per-session memoized
 * reconstruction, and request fields reaching the wire.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Layer, Stream } from "effect"
import { LlmAdapter } from "@turnlog/llm/LlmAdapter"
import { layerSilent } from "@turnlog/llm/ReplayDiagnostics"
import { MessageId, SessionId, type StreamChunk } from "@turnlog/protocol"
import { PiAiAdapter } from "@turnlog/llm-pi-ai"
import { configFor, harness, KEY, KEY_ENV, MODEL, providerOf, request, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

const API = "openai-completions" as const

const adapterWith = (config: unknown, options: PiAiAdapter.Options) =>
  Effect.runPromise(Effect.provide(LlmAdapter, PiAiAdapter.layerPiAi(config, options).pipe(Layer.provide(layerSilent))))

const collect = (stream: Stream.Stream<StreamChunk>) => Effect.runPromise(Stream.runCollect(stream).pipe(Effect.map(Chunk.toReadonlyArray)))

describe("PiAiAdapter: failures become one error finish", () => {
  it("an unknown route, before any HTTP request", async () => {
    const before = loopback.server.requests().length
    expect(await loopback.h.collect({ provider: "nowhere", model: "x", messages: [user("u", "hi")] })).toStrictEqual([{
      type: "finish",
      reason: { kind: "error", failure: { code: "UNKNOWN_ROUTE", message: "unknown provider nowhere (route nowhere/x)" } },
    }])
    expect(loopback.server.requests().length).toBe(before)
  })

  it("a missing credential names the variable, before any HTTP request", async () => {
    const adapter = await adapterWith(configFor(loopback.server), { env: {} })
    const before = loopback.server.requests().length
    expect(await collect(adapter.stream(request(API, [user("u", "hi")])))).toStrictEqual([{
      type: "finish",
      reason: {
        kind: "error",
        failure: {
          code: "MISSING_CREDENTIAL",
          message: `no credential for ${providerOf(API)}/${MODEL}: set the environment variable ${KEY_ENV}`,
        },
      },
    }])
    expect(loopback.server.requests().length).toBe(before)
  })

  it("a fetch that throws while dispatching", async () => {
    const adapter = await adapterWith(configFor(loopback.server), {
      env: { [KEY_ENV]: KEY },
      fetch: () => Promise.reject(new TypeError("fetch failed")),
    })
    const chunks = await collect(adapter.stream(request(API, [user("u", "hi")])))
    expect(chunks.filter((c) => c.type === "finish")).toHaveLength(1)
    expect(chunks.at(-1)).toMatchObject({ type: "finish", reason: { kind: "error", failure: { code: "TRANSPORT" } } })
  })

  it("an invalid config fails the layer with the bad field named", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.provide(
        LlmAdapter,
        PiAiAdapter.layerPiAi({ providers: { x: { api: "openai-completions", baseUrl: "", apiKeyEnv: "K", models: [] } } })
          .pipe(Layer.provide(layerSilent)),
      ),
    )
    expect(Exit.isFailure(exit)).toBe(true)
    expect(JSON.stringify(exit)).toContain("providers.x.baseUrl: expected a non-empty string")
  })
})

describe("PiAiAdapter: the key", () => {
  it("goes out in the request and never into a chunk, even when the provider echoes it", async () => {
    loopback.server.enqueue({ status: 401, message: `invalid key ${KEY} for this project` })
    const index = loopback.server.requests().length
    const chunks = await loopback.h.collect(request(API, [user("u", "hi")]))
    expect(loopback.server.requests()[index]!.headers["authorization"]).toBe(`Bearer ${KEY}`)
    expect(JSON.stringify(chunks)).not.toContain(KEY)
    expect(chunks.at(-1)).toMatchObject({
      reason: { kind: "error", failure: { code: "AUTH", message: expect.stringContaining("invalid key [redacted] for this project") } },
    })
  })
})

describe("PiAiAdapter: reconstruction is memoized per session", () => {
  const legacy = {
    id: MessageId.make("legacy-1"),
    role: "assistant" as const,
    content: [{ type: "text" as const, text: "Before." }],
    source: { kind: "model" as const, provider: providerOf(API), model: MODEL, replayState: { kind: "pi-ai", version: 1, blocks: [] } },
  }
  const history = [user("u1", "one"), legacy, user("u2", "two")]

  it("a degraded message is reported once per session, not once per request", async () => {
    const fresh = await harness(loopback.server)
    loopback.server.enqueue({ blocks: [{ type: "text", text: "a" }] }, { blocks: [{ type: "text", text: "b" }] }, {
      blocks: [{ type: "text", text: "c" }],
    })
    await fresh.collect(request(API, history, { sessionId: SessionId.make("s1") }))
    await fresh.collect(request(API, [...history, user("u3", "three")], { sessionId: SessionId.make("s1") }))
    expect((await fresh.diagnostics()).map((d) => [d.sessionId, d.messageId])).toEqual([["s1", "legacy-1"]])
    await fresh.collect(request(API, history, { sessionId: SessionId.make("s2") }))
    expect((await fresh.diagnostics()).map((d) => [d.sessionId, d.messageId])).toEqual([["s1", "legacy-1"], ["s2", "legacy-1"]])
  })
})

describe("PiAiAdapter: request fields reach the wire", () => {
  it("system prompt, tools, max tokens and temperature", async () => {
    loopback.server.enqueue({ blocks: [{ type: "text", text: "ok" }] })
    const index = loopback.server.requests().length
    const chunks = await loopback.h.collect(request(API, [user("u", "hi")], {
      system: "You are terse.",
      tools: [{ name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }],
      maxTokens: 321,
      temperature: 0.25,
    }))
    expect(chunks.at(-1)).toMatchObject({ type: "finish", reason: { kind: "stop" } })
    const body = loopback.server.requests()[index]!.body as any
    expect(body.messages[0]).toEqual({ role: "system", content: "You are terse." })
    expect(body.tools.map((t: any) => [t.function.name, t.function.parameters.required])).toEqual([["read_file", ["path"]]])
    expect(body.max_completion_tokens).toBe(321)
    expect(body.temperature).toBe(0.25)
  })
})
