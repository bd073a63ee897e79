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
import { type Cause, Effect, Exit } from "effect"
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
  /**
   * Receives the diagnostics of one reconstruction at once, in message order
   * (never called with none): a long legacy session costs one report, not one
   * effect per message.
   */
  readonly report: (diagnostics: ReadonlyArray<ReplayDiagnostic>) => Effect.Effect<void>
}

/** `<provider>/<model>` of the model that produced a message. */
export const routeOf = (message: Message): string =>
  message.source.kind === "model" ? `${message.source.provider}/${message.source.model}` : message.source.kind

// Degraded messages of one history mostly share their route: reusing the last
// route string spares a long legacy session one string per message.
let lastProvider = ""
let lastModel = ""
let lastRouteString = ""
const lastRoute = (message: Message): string => {
  const source = message.source
  if (source.kind !== "model") return source.kind
  if (source.provider !== lastProvider || source.model !== lastModel) {
    lastProvider = source.provider
    lastModel = source.model
    lastRouteString = `${source.provider}/${source.model}`
  }
  return lastRouteString
}

// One literal per shape (with or without a session id), never a property added later.
const diagnosticFor = (message: Message, error: InvalidReplayState, options: ReconstructOptions): ReplayDiagnostic =>
  options.sessionId === undefined
    ? {
      code: INVALID_REPLAY_STATE,
      messageId: message.id,
      historicalRoute: lastRoute(message),
      targetRoute: options.targetRoute,
      reason: error.reason,
    }
    : {
      code: INVALID_REPLAY_STATE,
      sessionId: options.sessionId,
      messageId: message.id,
      historicalRoute: lastRoute(message),
      targetRoute: options.targetRoute,
      reason: error.reason,
    }

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
      options.report([diagnosticFor(message, error, options)]).pipe(Effect.as(codec.foreign(message)))),
  )
}

/** The exit of an effect that has already completed, without running it. */
const completed = <A, E>(effect: Effect.Effect<A, E>): Exit.Exit<A, E> | undefined =>
  Exit.isExit(effect) ? (effect as Exit.Exit<A, E>) : undefined

/**
 * The one reconstruction loop, shared by the plain and the memoizing forms
 * (a top-level function, so the engine optimises one loop for every caller).
 *
 * Codecs that answer with an already-completed effect (`Exit.succeed` /
 * `Exit.fail`) are read synchronously: a long history costs one loop, not one
 * fiber step per message. Any other answer runs as an ordinary effect with the
 * same recovery. Diagnostics are reported after the loop, in message order.
 */
const run = <Native>(
  messages: ReadonlyArray<Message>,
  codec: ReplayCodec<Native>,
  options: ReconstructOptions,
  cache: Map<MessageId, Native> | undefined,
): Effect.Effect<Array<Native>> => {
  // Sized for every message and trimmed once: pushing would regrow (and copy) a long history's array.
  // (Past the engine's fast-array limit a pre-sized array would be a dictionary: grow those instead.)
  const out: Array<Native> = messages.length <= 50_000 ? new Array(messages.length) : []
  let n = 0
  let diagnostics: Array<ReplayDiagnostic> | undefined
  // Positions whose codec answered with a running effect: resolved after the
  // loop, with the place their diagnostic takes among the others.
  let pending: Array<readonly [number, Message, number]> | undefined
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    if (m.role !== "assistant") continue
    if (cache !== undefined) {
      const hit = cache.get(m.id)
      if (hit !== undefined) {
        out[n++] = hit
        continue
      }
    }
    let native: Native
    if (m.source.kind !== "model" || m.source.replayState === undefined) {
      native = codec.foreign(m)
    } else {
      const decoded = completed(codec.decode(m))
      if (decoded === undefined || (decoded._tag === "Failure" && decoded.cause._tag !== "Fail")) {
        ;(pending ??= []).push([n++, m, diagnostics?.length ?? 0]) // filled in below, in order
        continue
      }
      if (decoded._tag === "Success") {
        native = decoded.value
      } else {
        native = codec.foreign(m)
        ;(diagnostics ??= []).push(diagnosticFor(m, (decoded.cause as Cause.Fail<InvalidReplayState>).error, options))
      }
    }
    cache?.set(m.id, native)
    out[n++] = native
  }
  if (n < out.length) out.length = n
  if (pending === undefined) {
    return diagnostics === undefined ? Effect.succeed(out) : Effect.as(options.report(diagnostics), out)
  }
  const resolved = pending
  return Effect.suspend(() => {
    // The diagnostics of running answers, each with the number of completed
    // ones that came before its message: merged into one report, in order.
    const late: Array<readonly [number, ReplayDiagnostic]> = []
    return Effect.forEach(resolved, ([at, m, before]) =>
      codec.decode(m).pipe(
        Effect.catchTag("InvalidReplayState", (error) =>
          Effect.sync(() => {
            late.push([before, diagnosticFor(m, error, options)])
            return codec.foreign(m)
          })),
        Effect.map((native) => {
          cache?.set(m.id, native)
          out[at] = native
        }),
      ), { discard: true }).pipe(
        Effect.zipRight(Effect.suspend(() => {
          const early = diagnostics ?? []
          if (late.length === 0 && early.length === 0) return Effect.void
          const all: Array<ReplayDiagnostic> = []
          let k = 0
          for (const [before, diagnostic] of late) {
            while (k < before) all.push(early[k++]!)
            all.push(diagnostic)
          }
          while (k < early.length) all.push(early[k++]!)
          return options.report(all)
        })),
        Effect.as(out),
      )
  })
}

/** Every assistant message of `messages`, in order, in native form. */
export const reconstruct = <Native>(
  messages: ReadonlyArray<Message>,
  codec: ReplayCodec<Native>,
  options: ReconstructOptions,
): Effect.Effect<Array<Native>> => Effect.suspend(() => run(messages, codec, options, undefined))

export interface Reconstructor<Native> {
  /** Native form of one assistant message (only assistant messages have one), decoded (and diagnosed) once per message id. */
  readonly message: (message: Message, options: ReconstructOptions) => Effect.Effect<Native>
  /** Every assistant message of `messages`, in order. */
  readonly all: (messages: ReadonlyArray<Message>, options: ReconstructOptions) => Effect.Effect<Array<Native>>
  /** How many messages are memoized. */
  readonly size: () => number
}

/**
 * A memoizing reconstructor for one session. Durable messages never change
 * once logged, so a message id fixes its native form: each request pays only
 * for the messages that are new since the last one, and a degraded message's
 * diagnostic is reported once, not on every request.
 */
export const makeReconstructor = <Native>(codec: ReplayCodec<Native>): Reconstructor<Native> => {
  const cache = new Map<MessageId, Native>()
  return {
    message: (m, options) => Effect.suspend(() => Effect.map(run([m], codec, options, cache), (out) => out[0]!)),
    all: (messages, options) => Effect.suspend(() => run(messages, codec, options, cache)),
    size: () => cache.size,
  }
}
