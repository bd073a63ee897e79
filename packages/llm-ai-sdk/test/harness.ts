// The adapter wired to a loopback server: one provider per wire format, each served by its real
// AI SDK provider package, keyless.
import { afterAll, beforeAll } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { Assembler } from "@turnlog/assembler"
import { LlmAdapter, type LlmRequest } from "@turnlog/llm/LlmAdapter"
import { makeCollector, type ReplayDiagnostic, ReplayDiagnostics } from "@turnlog/llm/ReplayDiagnostics"
import { type Message, MessageId, type StreamChunk } from "@turnlog/protocol"
import { Loopback } from "@turnlog/testkit"
import { AiSdkAdapter } from "@turnlog/llm-ai-sdk"

export const KEY_ENV = "TURNLOG_LOOPBACK_KEY"
export const KEY = "sk-loopback-0123456789"
export const MODEL = "loop-1"

export const APIS = ["openai-completions", "openai-responses", "anthropic-messages", "google-generative-ai"] as const
export type Api = (typeof APIS)[number]

/** The provider id a test uses for an api. */
export const providerOf = (api: Api) => `lb-${api}`

export const configFor = (server: Loopback.Server) => ({
  providers: Object.fromEntries(APIS.map((api) => [providerOf(api), {
    api,
    baseUrl: server.baseUrl(api),
    apiKeyEnv: KEY_ENV,
    models: [{ id: MODEL, contextWindow: 200_000, maxTokens: 8_192, reasoning: true }],
  }])),
})

export interface Harness {
  readonly stream: (request: LlmRequest) => Stream.Stream<StreamChunk>
  readonly collect: (request: LlmRequest) => Promise<ReadonlyArray<StreamChunk>>
  readonly diagnostics: () => Promise<ReadonlyArray<ReplayDiagnostic>>
}

/** A harness over any adapter layer that needs `ReplayDiagnostics`. */
export const harnessOf = async (layer: Layer.Layer<LlmAdapter, unknown, ReplayDiagnostics>): Promise<Harness> => {
  const collector = await Effect.runPromise(makeCollector)
  const adapter = await Effect.runPromise(
    Effect.provide(LlmAdapter, layer.pipe(Layer.provide(Layer.succeed(ReplayDiagnostics, collector.service)))),
  )
  return {
    stream: adapter.stream,
    collect: (request) => Effect.runPromise(Stream.runCollect(adapter.stream(request)).pipe(Effect.map(Chunk.toReadonlyArray))),
    diagnostics: () => Effect.runPromise(collector.all),
  }
}

export const harness = (server: Loopback.Server): Promise<Harness> => harnessOf(AiSdkAdapter.layerConfig(configFor(server), { env: { [KEY_ENV]: KEY } }))

export const request = (api: Api, messages: ReadonlyArray<Message>, fields: Partial<LlmRequest> = {}): LlmRequest => ({
  provider: providerOf(api),
  model: MODEL,
  messages,
  ...fields,
})

export const user = (id: string, text: string): Message => ({
  id: MessageId.make(id),
  role: "user",
  content: [{ type: "text", text }],
  source: { kind: "user" },
})

/** The durable assistant message the agent loop stores for a streamed response. */
export const stored = (id: string, api: Api, chunks: ReadonlyArray<StreamChunk>, provider = providerOf(api)) => {
  const assembled = Assembler.assemble(chunks)
  const message: Message = {
    id: MessageId.make(id),
    role: "assistant",
    content: assembled.blocks,
    source: {
      kind: "model",
      provider,
      model: MODEL,
      ...(assembled.replayState === undefined ? {} : { replayState: assembled.replayState }),
    },
  }
  return { assembled, message }
}

export const finishOf = (chunks: ReadonlyArray<StreamChunk>) => chunks.at(-1)

/**
 * The loopback server of one test file, started before its tests and closed
 * after them. Read the fields inside tests, not at load.
 */
export const useLoopback = (): { readonly server: Loopback.Server } => {
  const state = {} as { server: Loopback.Server }
  beforeAll(async () => {
    state.server = await Loopback.start()
  })
  afterAll(() => state.server.close())
  return state
}
