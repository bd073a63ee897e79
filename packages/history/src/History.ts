/**
 * Durable log → request history, and the generic reconstructor that turns
 * durable assistant messages back into an adapter's native form.
 *
 * Durable content is authoritative: replay state only restores fidelity. When
 * a codec cannot use a message's state it fails with `InvalidReplayState`; the
 * reconstructor recovers exactly that tag, locally, into the codec's
 * provider-neutral conversion and reports one diagnostic. Any other failure
 * propagates.
 */
import { Cause, Effect, Exit, Option } from "effect"
import type { Message, MessageId, SessionId, SessionLog } from "@turnlog/protocol"
import type { InvalidReplayState, ReplayCodec, ReplayDiagnostic } from "./Replay.js"
import { INVALID_REPLAY_STATE } from "./Replay.js"

/**
 * The messages a request is built from, in log order: user messages, assistant
 * messages with content (replay state as stored), tool results. Raw chunks,
 * request markers and turn boundaries are not history.
 */
export const fromEvents = (events: Iterable<SessionLog.SessionEvent>): Array<Message> => {
  const messages: Array<Message> = []
  for (const event of events) {
    switch (event.type) {
      case "user/message":
      case "tool/result":
        messages.push(event.data.message)
        break
      case "assistant/message":
        if (event.data.message.content.length > 0) messages.push(event.data.message)
        break
      case "turn/start":
      case "request/start":
      case "assistant/chunk":
      case "tool/call":
      case "turn/end":
        break
    }
  }
  return messages
}

export interface ReconstructOptions {
  /** `<provider>/<model>` of the request being built. */
  readonly targetRoute: string
  readonly sessionId?: SessionId
  readonly report: (diagnostic: ReplayDiagnostic) => Effect.Effect<void>
}

/** `<provider>/<model>` of the model that produced a message. */
export const routeOf = (message: Message): string =>
  message.source.kind === "model" ? `${message.source.provider}/${message.source.model}` : message.source.kind

const diagnosticFor = (message: Message, error: InvalidReplayState, options: ReconstructOptions): ReplayDiagnostic => ({
  code: INVALID_REPLAY_STATE,
  ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
  messageId: message.id,
  historicalRoute: routeOf(message),
  targetRoute: options.targetRoute,
  reason: error.reason,
})

/**
 * One assistant message in native form. A message without replay state is
 * converted provider-neutral with no diagnostic; unusable state degrades this
 * message only.
 */
export const reconstructMessage = <Native>(
  message: Message,
  codec: ReplayCodec<Native>,
  options: ReconstructOptions,
): Effect.Effect<Native> => {
  if (message.source.kind !== "model" || message.source.replayState === undefined) {
    return Effect.succeed(codec.foreign(message))
  }
  return codec.decode(message).pipe(
    Effect.catchTag("InvalidReplayState", (error) =>
      options.report(diagnosticFor(message, error, options)).pipe(Effect.as(codec.foreign(message)))),
  )
}

/** Every assistant message of `messages`, in order, in native form. */
export const reconstruct = <Native>(
  messages: ReadonlyArray<Message>,
  codec: ReplayCodec<Native>,
  options: ReconstructOptions,
): Effect.Effect<Array<Native>> => makeReconstructor(codec).all(messages, options)

export interface Reconstructor<Native> {
  /** Native form of one assistant message, decoded (and diagnosed) once per message id. */
  readonly message: (message: Message, options: ReconstructOptions) => Effect.Effect<Native>
  /** Every assistant message of `messages`, in order. */
  readonly all: (messages: ReadonlyArray<Message>, options: ReconstructOptions) => Effect.Effect<Array<Native>>
  /** How many messages are memoized. */
  readonly size: () => number
}

/** The exit of an effect that has already completed, without running it. */
const completed = <A, E>(effect: Effect.Effect<A, E>): Exit.Exit<A, E> | undefined =>
  Exit.isExit(effect) ? (effect as Exit.Exit<A, E>) : undefined

/**
 * A memoizing reconstructor for one session. Durable messages never change
 * once logged, so a message id fixes its native form: each request pays only
 * for the messages that are new since the last one, and a degraded message's
 * diagnostic is reported once, not on every request.
 *
 * Codecs that answer with an already-completed effect (`Effect.succeed` /
 * `Effect.fail` are `Exit` values) are read synchronously: a long history
 * costs one loop, not one fiber step per message. Anything else runs as an
 * ordinary effect with the same recovery.
 */
export const makeReconstructor = <Native>(codec: ReplayCodec<Native>): Reconstructor<Native> => {
  const cache = new Map<MessageId, Native>()

  const message = (m: Message, options: ReconstructOptions): Effect.Effect<Native> =>
    Effect.suspend(() => {
      const hit = cache.get(m.id)
      if (hit !== undefined) return Effect.succeed(hit)
      return Effect.tap(reconstructMessage(m, codec, options), (native) => {
        cache.set(m.id, native)
      })
    })

  const all = (messages: ReadonlyArray<Message>, options: ReconstructOptions): Effect.Effect<Array<Native>> =>
    Effect.suspend(() => {
      const out: Array<Native> = []
      const diagnostics: Array<ReplayDiagnostic> = []
      // Positions whose codec answered with a running effect: resolved after the loop.
      let pending: Array<readonly [number, Message]> | undefined
      for (const m of messages) {
        if (m.role !== "assistant") continue
        const hit = cache.get(m.id)
        if (hit !== undefined) {
          out.push(hit)
          continue
        }
        if (m.source.kind !== "model" || m.source.replayState === undefined) {
          const native = codec.foreign(m)
          cache.set(m.id, native)
          out.push(native)
          continue
        }
        const decoded = completed(codec.decode(m))
        if (decoded !== undefined) {
          if (Exit.isSuccess(decoded)) {
            cache.set(m.id, decoded.value)
            out.push(decoded.value)
            continue
          }
          const failure = Cause.failureOption(decoded.cause)
          if (Option.isSome(failure) && failure.value._tag === "InvalidReplayState") {
            const native = codec.foreign(m)
            diagnostics.push(diagnosticFor(m, failure.value, options))
            cache.set(m.id, native)
            out.push(native)
            continue
          }
        }
        ;(pending ??= []).push([out.length, m])
        out.push(undefined as Native) // filled in below, in order
      }
      const resolvePending = pending === undefined
        ? Effect.void
        : Effect.forEach(pending, ([i, m]) => Effect.map(message(m, options), (native) => {
          out[i] = native
        }), { discard: true })
      return resolvePending.pipe(
        Effect.zipRight(Effect.forEach(diagnostics, options.report, { discard: true })),
        Effect.as(out),
      )
    })

  return { message, all, size: () => cache.size }
}
