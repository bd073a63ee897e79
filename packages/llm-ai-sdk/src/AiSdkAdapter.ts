/**
 * The `LlmAdapter` over an AI SDK language model: route to a model, history
 * reconstruction through the `ai-sdk` codec, the prompt, then the model's
 * `doStream` parts mapped to chunks.
 *
 * Only the model's stream is used (`@ai-sdk/provider`'s `doStream`), not the
 * `ai` package's `streamText`: turnlog's loop runs the tools (with
 * permissions and the log) and owns retries (each attempt logged), which are
 * what `streamText` would add.
 *
 * The stream never fails. No route, no key, a throw while dispatching, a
 * failing stream, a provider error: each ends it in one error finish without
 * replay state. Interrupting the stream aborts the HTTP request.
 *
 * Reconstruction is incremental per session (by `request.sessionId`, through
 * `SessionHistory` of `@turnlog/history`, as pi-ai's adapter does): a request
 * decodes only the messages new since the previous one, and a degraded
 * message is reported once.
 */
import type { LanguageModelV3 } from "@ai-sdk/provider"
import { Cause, Effect, Either, Layer, Stream } from "effect"
import * as SessionHistory from "@turnlog/history/SessionHistory"
import { LlmAdapter, type LlmRequest, type ModelInfo, type Service } from "@turnlog/llm/LlmAdapter"
import { ReplayDiagnostics } from "@turnlog/llm/ReplayDiagnostics"
import type { Failure, StreamChunk } from "@turnlog/protocol"
import * as AiSdkChunks from "./AiSdkChunks.js"
import { messageOf } from "./AiSdkFailures.js"
import { toCallOptions } from "./AiSdkPrompt.js"
import * as AiSdkProviders from "./AiSdkProviders.js"
import { codec } from "./AiSdkReplay.js"
import * as PartSource from "./internal/PartSource.js"

export interface Options {
  /** How many sessions keep a memoized reconstruction (least recently used go first). */
  readonly maxSessions?: number
}

export interface ModelOptions extends Options {
  /** The model's window and output limit, for the loop's compaction (unknown: the loop never compacts). */
  readonly modelInfo?: ModelInfo
}

export interface ConfigOptions extends Options {
  /** Where keys are looked up (default `process.env`). */
  readonly env?: AiSdkProviders.Environment
  /** The fetch the provider packages use (default `globalThis.fetch`). */
  readonly fetch?: typeof globalThis.fetch
}

const DEFAULT_MAX_SESSIONS = 64

type Resolve = (provider: string, model: string) => Either.Either<AiSdkProviders.Resolved, Failure>

/** Replaces every occurrence of a secret, so no failure message carries a key into the log. */
const redactor = (secret: string | undefined) => (text: string): string =>
  secret === undefined || secret.length < 4 ? text : text.split(secret).join("[redacted]")

const makeWith = (resolve: Resolve, options: Options) =>
  Effect.gen(function*() {
    const diagnostics = yield* ReplayDiagnostics
    const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS
    const historyOf = SessionHistory.cache(codec, maxSessions)

    const respond = (request: LlmRequest, resolved: AiSdkProviders.Resolved): Stream.Stream<StreamChunk> =>
      Stream.unwrap(Effect.gen(function*() {
        const target = { provider: request.provider, model: request.model, sdkProvider: resolved.model.provider }
        const assistants = yield* historyOf(request.sessionId).reconstruct(request.messages, {
          targetRoute: `${request.provider}/${request.model}`,
          ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
          report: diagnostics.report,
        }, request.historyRevision)
        const call = toCallOptions(request, assistants, target)
        return PartSource.inputs((abortSignal) => resolved.model.doStream({ ...call, abortSignal })).pipe(
          Stream.mapAccum(
            AiSdkChunks.initial({
              ...target,
              failures: { messages: request.messages, redact: redactor(resolved.secret) },
            }),
            AiSdkChunks.step,
          ),
          Stream.flattenIterables,
          Stream.takeUntil((chunk) => chunk.type === "finish"),
        )
      }))

    const stream = (request: LlmRequest): Stream.Stream<StreamChunk> =>
      Stream.suspend(() => {
        const resolved = resolve(request.provider, request.model)
        return Either.isLeft(resolved) ? Stream.succeed(AiSdkChunks.errorFinish(resolved.left)) : respond(request, resolved.right)
      }).pipe(
        // Only what the structure cannot turn into a finish arrives here: an interruption, or a defect.
        Stream.catchAllCause((cause) =>
          Stream.succeed<StreamChunk>(
            Cause.isInterruptedOnly(cause)
              ? { type: "finish", reason: { kind: "aborted", failure: { code: "ABORTED", message: "the request was interrupted" } } }
              : AiSdkChunks.errorFinish({ code: "PROVIDER_ERROR", message: messageOf(Cause.squash(cause)) }),
          )
        ),
      )

    const modelInfo = (provider: string, model: string): ModelInfo | undefined => {
      const resolved = resolve(provider, model)
      if (Either.isLeft(resolved)) return undefined
      const { contextWindow, maxTokens } = resolved.right
      return contextWindow === undefined || maxTokens === undefined ? undefined : { contextWindow, maxTokens }
    }

    // Known before any request: a route the config lacks, a key that is not set (the loop then makes no session).
    const unavailable = (provider: string, model: string): Effect.Effect<Failure | undefined> =>
      Effect.sync(() => Either.match(resolve(provider, model), { onLeft: (failure) => failure, onRight: () => undefined }))

    return { stream, modelInfo, unavailable } satisfies Service
  })

/**
 * The adapter over one AI SDK model (any `LanguageModelV3`, as the provider
 * packages make them: `anthropic("claude-sonnet-4-5")`, `openai.responses(…)`):
 * every request is sent to it, whatever route it names; the route is what the
 * log records the messages under.
 */
export const make = (model: LanguageModelV3, options: ModelOptions = {}) =>
  makeWith(
    () =>
      Either.right({
        model,
        secret: undefined,
        contextWindow: options.modelInfo?.contextWindow,
        maxTokens: options.modelInfo?.maxTokens,
      }),
    options,
  )

/** `LlmAdapter` over one AI SDK model; needs `ReplayDiagnostics`. */
export const layer = (model: LanguageModelV3, options: ModelOptions = {}) => Layer.effect(LlmAdapter, make(model, options))

/** The adapter over the providers of a config (see `AiSdkProviders`); fails with `AiSdkConfigError` naming each bad field. */
export const makeFromConfig = (config: unknown, options: ConfigOptions = {}) =>
  Effect.flatMap(AiSdkProviders.decodeConfig(config), (decoded) => makeDecoded(decoded, options))

/** The adapter over a config its caller already decoded (see `AiSdkProviders.decodeConfig`). */
export const makeDecoded = (decoded: AiSdkProviders.Config, options: ConfigOptions = {}) =>
  Effect.suspend(() => makeWith(AiSdkProviders.make(decoded, options.env ?? process.env, options.fetch).resolve, options))

/** `LlmAdapter` over the providers of a config; needs `ReplayDiagnostics`. */
export const layerConfig = (config: unknown, options: ConfigOptions = {}) => Layer.effect(LlmAdapter, makeFromConfig(config, options))

/** `LlmAdapter` over a config already decoded, so it is not decoded again. */
export const layerDecoded = (config: AiSdkProviders.Config, options: ConfigOptions = {}) => Layer.effect(LlmAdapter, makeDecoded(config, options))
