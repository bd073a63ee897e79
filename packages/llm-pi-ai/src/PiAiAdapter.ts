/**
 * The `LlmAdapter` over pi-ai: route and credential, history reconstruction,
 * request conversion, then pi-ai's event stream mapped to chunks.
 *
 * The stream never fails. Whatever goes wrong — no route, no key, a throw
 * while dispatching, a throwing event source, a provider error — ends it in
 * one error finish without replay state. The request's HTTP call is tied to
 * the stream: interrupting the stream aborts it.
 *
 * Reconstruction is memoized per session (by `request.sessionId`): durable
 * messages never change, so each request decodes only the messages that are
 * new since the previous one, and a degraded message is reported once
 * (`SessionHistory` of `@turnlog/history`).
 */
import { type Context, type ModelCost, normalizeContext, type SimpleStreamOptions } from "@earendil-works/pi-ai"
import { clampMaxTokensToContext } from "@earendil-works/pi-ai/api/simple-options"
import { registerLazyBedrockProvider } from "@earendil-works/pi-ai/lazy-bedrock-provider"
import { Cause, Effect, Either, Layer, Stream } from "effect"
import { LlmAdapter, type LlmRequest, type ModelInfo, type ModelPrices, type Service } from "@turnlog/llm/LlmAdapter"
import { ReplayDiagnostics } from "@turnlog/llm/ReplayDiagnostics"
import type { Failure, StreamChunk } from "@turnlog/protocol"
import * as SessionHistory from "@turnlog/history/SessionHistory"
import * as EventSource from "./internal/EventSource.js"
import * as RefusedMessage from "./internal/RefusedMessage.js"
import * as PiAiChunks from "./PiAiChunks.js"
import { toContext } from "./PiAiContext.js"
import { messageOf, observeFetch } from "./PiAiFailures.js"
import { codec } from "./PiAiReplay.js"
import * as Routing from "./PiAiRouting.js"

export interface Options {
  /** Where keys are looked up (default `process.env`). */
  readonly env?: Routing.Environment
  /** The fetch pi-ai's providers use (default `globalThis.fetch`). */
  readonly fetch?: typeof globalThis.fetch
  /** How many sessions keep a memoized reconstruction (least recently used go first). */
  readonly maxSessions?: number
}

const DEFAULT_MAX_SESSIONS = 64

interface Prepared {
  readonly route: Routing.Resolved
  readonly secret: string | undefined
  readonly context: Context
}

/** Replaces every occurrence of a secret, so no failure message can carry a key into the log. */
const redactor = (secret: string | undefined) => (text: string): string =>
  secret === undefined || secret.length < 4 ? text : text.split(secret).join("[redacted]")

/**
 * The openai SDK (under pi-ai's OpenAI providers) writes "Could not parse
 * message into JSON" to the console before it throws on a stream event that is
 * not JSON; the throw already ends the stream in an error finish saying so, and
 * the console is the terminal's or ACP's stderr. Nothing else in it logs at the
 * default level, so its logging is off unless the user asked for it.
 */
const quietSdkLogs = Effect.sync(() => {
  if (process.env["OPENAI_LOG"] === undefined) process.env["OPENAI_LOG"] = "off"
})

/** The adapter over a config as given: decoded here, failing with `PiAiConfigError` naming each bad field. */
export const make = (config: unknown, options: Options = {}) => Effect.flatMap(Routing.decodeConfig(config), (decoded) => makeDecoded(decoded, options))

/** The adapter over a config its caller already decoded (see `PiAiRouting.decodeConfig`). */
export const makeDecoded = (decoded: Routing.Config, options: Options = {}) =>
  Effect.gen(function*() {
    yield* quietSdkLogs
    // Bedrock through a literal import: in a bundle (the command's) pi-ai's own
    // variable import would look for its files beside the bundle.
    registerLazyBedrockProvider()
    const diagnostics = yield* ReplayDiagnostics
    const router = Routing.make(decoded, options.env ?? process.env)
    const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS
    const reconstructorFor = SessionHistory.cache(codec, maxSessions)

    /** The pi-ai options of one request; retries belong to the agent loop, which logs each attempt. */
    const streamOptions = (request: LlmRequest, signal: AbortSignal, fetch: typeof globalThis.fetch): SimpleStreamOptions => ({
      signal,
      fetch,
      maxRetries: 0,
      ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.reasoning === undefined ? {} : { reasoning: request.reasoning }),
      ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
    })

    /**
     * The pi-ai context of a request on its route. Through the session's memo:
     * measuring a request before it is sent decodes its history once, and the
     * request itself then finds it decoded.
     */
    const contextOf = (request: LlmRequest, route: Routing.Resolved): Effect.Effect<Context> =>
      Effect.map(
        reconstructorFor(request.sessionId).reconstruct(request.messages, {
          targetRoute: route.id,
          ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
          report: diagnostics.report,
        }, request.historyRevision),
        (assistants) => toContext(request, assistants),
      )

    /** The route's credential, or the failure saying what to set. */
    const credentialOf = (route: Routing.Resolved) =>
      Effect.tryPromise({
        try: (signal) => router.credential(route, signal),
        catch: (cause): Failure => ({ code: "PROVIDER_ERROR", message: messageOf(cause) }),
      }).pipe(Effect.catchAll((failure) => Effect.succeed(Either.left(failure))))

    /** The route, credential and native history of a request, or the failure that stops it before any HTTP call. */
    const prepare = (request: LlmRequest): Effect.Effect<Either.Either<Prepared, Failure>> =>
      Effect.gen(function*() {
        const route = router.resolve(request.provider, request.model)
        if (Either.isLeft(route)) return Either.left(route.left)
        const credential = yield* credentialOf(route.right)
        if (Either.isLeft(credential)) return Either.left(credential.left)
        const context = yield* contextOf(request, route.right)
        return Either.right({ route: route.right, secret: credential.right.secret, context })
      })

    /** The provider's response as chunks, ending with its one finish. */
    const respond = (request: LlmRequest, prepared: Prepared): Stream.Stream<StreamChunk> => {
      const observed = observeFetch(options.fetch)
      const inputs = EventSource.inputs((signal) => router.streamSimple(prepared.route, prepared.context, streamOptions(request, signal, observed.fetch)))
      return inputs.pipe(
        Stream.mapAccum(
          PiAiChunks.initial({
            response: observed.response,
            redact: redactor(prepared.secret),
            locate: RefusedMessage.locate(request.messages, observed.requestBody),
          }),
          PiAiChunks.step,
        ),
        Stream.flattenIterables,
        Stream.takeUntil((chunk) => chunk.type === "finish"),
      )
    }

    const stream = (request: LlmRequest): Stream.Stream<StreamChunk> =>
      Stream.fromEffect(prepare(request)).pipe(
        Stream.flatMap(Either.match({
          onLeft: (failure) => Stream.succeed(PiAiChunks.errorFinish(failure)),
          onRight: (prepared) => respond(request, prepared),
        })),
        // Only what the structure cannot turn into a finish arrives here: an
        // interruption, or a defect, before the finish (after it the stream has ended).
        Stream.catchAllCause((cause) =>
          Stream.succeed<StreamChunk>(
            Cause.isInterruptedOnly(cause)
              ? {
                type: "finish",
                reason: { kind: "aborted", failure: { code: "ABORTED", message: "the request was interrupted" } },
              }
              : PiAiChunks.errorFinish({ code: "PROVIDER_ERROR", message: messageOf(Cause.squash(cause)) }),
          )
        ),
      )

    // A catalog entry without prices has every rate 0: no cost is claimed for it.
    const prices = (cost: ModelCost | undefined): ModelPrices | undefined => {
      if (cost === undefined || !(cost.input > 0 || cost.output > 0 || cost.cacheRead > 0 || cost.cacheWrite > 0)) return undefined
      const rates = { input: cost.input, output: cost.output, cacheRead: cost.cacheRead, cacheWrite: cost.cacheWrite }
      return cost.tiers === undefined || cost.tiers.length === 0 ? rates : { ...rates, tiers: cost.tiers }
    }

    const withPrices = (cost: ModelPrices | undefined) => (cost === undefined ? {} : { cost })

    const modelInfo = (provider: string, model: string): ModelInfo | undefined => {
      const route = router.resolve(provider, model)
      return Either.isLeft(route)
        ? undefined
        : {
          contextWindow: route.right.model.contextWindow,
          maxTokens: route.right.model.maxTokens,
          input: route.right.model.input,
          ...(route.right.model.reasoning ? { reasoning: true } : {}),
          ...withPrices(prices(route.right.model.cost)),
        }
    }

    /**
     * pi-ai's own clamp of the answer budget (`streamSimple` applies it to
     * every api): the window less its estimate of the input and its safety
     * margin. Asked of the very context the request is sent as (normalized as
     * `streamSimple` normalizes it), so the loop and the wire cannot disagree.
     */
    const answerRoom = (request: LlmRequest): Effect.Effect<number | undefined> =>
      Effect.suspend(() => {
        const route = router.resolve(request.provider, request.model)
        if (Either.isLeft(route)) return Effect.succeed(undefined)
        const model = route.right.model
        return Effect.map(
          contextOf(request, route.right),
          (context) => clampMaxTokensToContext(model, normalizeContext(context), request.maxTokens ?? model.maxTokens),
        )
      })

    /** No route, or no credential for it: what the first request would fail with, found without sending one. */
    const unavailable = (provider: string, model: string): Effect.Effect<Failure | undefined> =>
      Effect.suspend(() => {
        const route = router.resolve(provider, model)
        if (Either.isLeft(route)) return Effect.succeed(route.left)
        return Effect.map(credentialOf(route.right), (credential) => Either.isLeft(credential) ? credential.left : undefined)
      })

    return { stream, modelInfo, answerRoom, unavailable } satisfies Service
  })

/** `LlmAdapter` over pi-ai; `config` is `{ providers: { <id>: { api, baseUrl, apiKeyEnv, models } } }`. */
export const layerPiAi = (config: unknown, options: Options = {}) => Layer.effect(LlmAdapter, make(config, options))

/** `LlmAdapter` over pi-ai with a config already decoded, so it is not decoded again. */
export const layerDecoded = (config: Routing.Config, options: Options = {}) => Layer.effect(LlmAdapter, makeDecoded(config, options))
