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
 * (`internal/SessionHistory.ts`).
 */
import type { AssistantMessage, SimpleStreamOptions } from "@earendil-works/pi-ai"
import { Cause, Effect, Either, Layer, Stream } from "effect"
import { LlmAdapter, type LlmRequest, type Service } from "@turnlog/llm/LlmAdapter"
import { ReplayDiagnostics } from "@turnlog/llm/ReplayDiagnostics"
import type { SessionId, StreamChunk } from "@turnlog/protocol"
import * as Chunks from "./Chunks.js"
import { toContext } from "./Context.js"
import { messageOf, observeFetch } from "./Failures.js"
import { codec } from "./Replay.js"
import * as SessionHistory from "./internal/SessionHistory.js"
import * as Routing from "./Routing.js"

export interface Options {
  /** Where keys are looked up (default `process.env`). */
  readonly env?: Routing.Environment
  /** The fetch pi-ai's providers use (default `globalThis.fetch`). */
  readonly fetch?: typeof globalThis.fetch
  /** How many sessions keep a memoized reconstruction (least recently used go first). */
  readonly maxSessions?: number
}

const DEFAULT_MAX_SESSIONS = 64

type Reconstructor = SessionHistory.SessionHistory<AssistantMessage>

/** Replaces every occurrence of a secret, so no failure message can carry a key into the log. */
const redactor = (secret: string | undefined) => (text: string): string =>
  secret === undefined || secret.length < 4 ? text : text.split(secret).join("[redacted]")

export const make = (config: unknown, options: Options = {}) =>
  Effect.gen(function*() {
    const decoded = yield* Routing.decodeConfig(config)
    const diagnostics = yield* ReplayDiagnostics
    const router = Routing.make(decoded, options.env ?? process.env)
    const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS
    const sessions = new Map<SessionId, Reconstructor>()

    const reconstructorFor = (sessionId: SessionId | undefined): Reconstructor => {
      if (sessionId === undefined) return SessionHistory.make(codec)
      const found = sessions.get(sessionId)
      if (found !== undefined) {
        // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
        sessions.delete(sessionId)
        sessions.set(sessionId, found)
        return found
      }
      const created = SessionHistory.make(codec)
      sessions.set(sessionId, created)
      if (sessions.size > maxSessions) sessions.delete(sessions.keys().next().value!)
      return created
    }

    const stream = (request: LlmRequest): Stream.Stream<StreamChunk> =>
      Stream.suspend(() => run(request))

    const run = (request: LlmRequest): Stream.Stream<StreamChunk> => {
      // Set once a finish is emitted: nothing may follow it, not even a recovered failure.
      let finished = false
      const once = (chunk: StreamChunk): Stream.Stream<StreamChunk> => {
        finished = true
        return Stream.make(chunk)
      }
      const dispatch = Effect.gen(function*() {
        const route = router.resolve(request.provider, request.model)
        if (Either.isLeft(route)) return once(Chunks.errorFinish(route.left))
        const credential = yield* Effect.tryPromise({
          try: (signal) => router.credential(route.right, signal),
          catch: (cause) => cause,
        })
        if (Either.isLeft(credential)) return once(Chunks.errorFinish(credential.left))
        const assistants = yield* reconstructorFor(request.sessionId).reconstruct(request.messages, {
          targetRoute: route.right.id,
          ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
          report: diagnostics.report,
        })
        const context = toContext(request, assistants)
        const model = route.right.model
        const redact = redactor(credential.right.secret)

        return Stream.asyncPush<StreamChunk>((emit) =>
          Effect.acquireRelease(
            Effect.sync(() => {
              const controller = new AbortController()
              const observed = observeFetch(options.fetch)
              const mapper = Chunks.make({ response: observed.response, redact })
              const push = (chunks: ReadonlyArray<StreamChunk>) => {
                if (chunks.length > 0) emit.array(chunks)
                if (mapper.finished()) {
                  finished = true
                  emit.end()
                }
              }
              const streamOptions: SimpleStreamOptions = {
                signal: controller.signal,
                fetch: observed.fetch,
                // Retries belong to the agent loop, which logs each attempt.
                maxRetries: 0,
                ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
                ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
                ...(request.reasoning === undefined ? {} : { reasoning: request.reasoning }),
                ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
              }
              void (async () => {
                try {
                  const events = router.models.streamSimple(model, context, streamOptions)
                  for await (const event of events) {
                    push(mapper.event(event))
                    if (mapper.finished()) break
                  }
                  push(mapper.end())
                } catch (cause) {
                  push(mapper.fail(cause))
                }
              })()
              return { controller, mapper }
            }),
            // A response still in flight when the stream is closed (interrupted, or
            // its consumer stopped early) is aborted, which closes its HTTP request.
            ({ controller, mapper }) => Effect.sync(() => mapper.finished() || controller.abort()),
          )
        )
      })

      return Stream.unwrapScoped(dispatch).pipe(
        Stream.catchAllCause((cause) => {
          if (finished) return Stream.empty
          if (Cause.isInterruptedOnly(cause)) {
            return once({
              type: "finish",
              reason: { kind: "aborted", failure: { code: "ABORTED", message: "the request was interrupted" } },
            })
          }
          const error = Cause.squash(cause)
          return once(Chunks.errorFinish({ code: "PROVIDER_ERROR", message: messageOf(error) }))
        }),
      )
    }

    return { stream } satisfies Service
  })

/** `LlmAdapter` over pi-ai; `config` is `{ providers: { <id>: { api, baseUrl, apiKeyEnv, models } } }`. */
export const layerPiAi = (config: unknown, options: Options = {}) => Layer.effect(LlmAdapter, make(config, options))
