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
import { type Message, MessageId, type SessionId, type SessionLog } from "@turnlog/protocol"
import * as Conversation from "./internal/conversation.js"
import type { InvalidReplayState, ReplayCodec, ReplayDiagnostic } from "./Replay.js"
import { INVALID_REPLAY_STATE } from "./Replay.js"

/** How the summary of a compaction is framed for the model: clearly earlier conversation, not the user's words. */
export const SUMMARY_PREFIX =
  "The conversation before this point was compacted to fit the context window. This is a summary of that earlier conversation, written for you; the messages after it continue where it ends."

/** The text of the summary message. */
export const summaryText = (summary: string): string => `${SUMMARY_PREFIX}\n\n<summary>\n${summary}\n</summary>`

/**
 * The summary of a compaction as the first message of the history: one
 * provider-neutral user-role message, written by the runtime (system source).
 * Its id follows from the compaction's seq, so every request after the same
 * compaction starts with the same message.
 */
export const summaryMessage = (compaction: SessionLog.EventOf<"context/compaction">): Message => ({
  id: MessageId.make(`compaction-${compaction.seq}`),
  role: "user",
  content: [{ type: "text", text: summaryText(compaction.data.summary) }],
  source: { kind: "system" },
})

/**
 * The messages a request is built from, in log order: user messages, assistant
 * messages with content, tool results. Raw chunks, request markers and turn
 * boundaries are not history, nor is a compaction's own summary request.
 *
 * With a `context/compaction` in the log, the history starts from the latest
 * one: its summary (`summaryMessage`), then the messages from its
 * `firstKeptSeq` on. A message named by a `replay/degrade` is sent without its
 * replay state (so provider-neutral) from then on; the event itself is the
 * record of why, so no diagnostic is reported for it here. Replay state of
 * every other message goes on exactly as stored.
 */
export const fromEvents = (events: ReadonlyArray<SessionLog.SessionEvent>): Array<Message> => {
  const p = Conversation.plan(events)
  if (p.compaction === undefined) {
    const messages: Array<Message> = []
    Conversation.collect(events, 0, p.degraded, messages, undefined)
    return messages
  }
  const messages: Array<Message> = [summaryMessage(p.compaction)]
  Conversation.collect(events, Conversation.keptStart(events, p), p.degraded, messages, undefined)
  return messages
}

/** The conversation after the latest compaction, message by message with the seq of its event. */
export interface View {
  /** The compaction the history starts from, if any (its summary is not among `messages`). */
  readonly compaction: SessionLog.EventOf<"context/compaction"> | undefined
  readonly messages: ReadonlyArray<Message>
  /** `seqs[i]` is the seq of the event `messages[i]` came from. */
  readonly seqs: ReadonlyArray<number>
}

/** What `fromEvents` returns, less the summary message, with each message's seq: what a compaction cuts. */
export const view = (events: ReadonlyArray<SessionLog.SessionEvent>): View => {
  const p = Conversation.plan(events)
  const messages: Array<Message> = []
  const seqs: Array<number> = []
  Conversation.collect(events, p.compaction === undefined ? 0 : Conversation.keptStart(events, p), p.degraded, messages, seqs)
  return { compaction: p.compaction, messages, seqs }
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
    Effect.catchTag("InvalidReplayState", (error) => options.report([diagnosticFor(message, error, options)]).pipe(Effect.as(codec.foreign(message)))),
  )
}

/**
 * A session's memo, by message id, in two halves: answers decoded from replay
 * state, and answers made without it. A message sent without state after a
 * `replay/degrade` is then a miss in the second half, never the native form
 * decoded before the provider refused it.
 */
interface Memo<Native> {
  readonly decoded: Map<MessageId, Native>
  readonly stateless: Map<MessageId, Native>
}

/** The exit of an effect that has already completed, without running it. */
const completed = <A, E>(effect: Effect.Effect<A, E>): Exit.Exit<A, E> | undefined => Exit.isExit(effect) ? (effect as Exit.Exit<A, E>) : undefined

/**
 * TUNED FOR BENCHMARK valid, legacy, mixed and the growing session of
 * llm-pi-ai's bench/replay.bench.ts (10,000 messages at ≤ 1.3× a plain map on
 * valid state, ≤ 2× on legacy and mixed; step 1,000 of a session costs what
 * step 100 does). What it answers is defined by the plain reference in
 * `test/ReferenceRun.ts`: change behaviour there first; the property test
 * `test/ReferenceRun.prop.test.ts` holds this loop equal to it.
 *
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
  cache: Memo<Native> | undefined,
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
    const stateless = m.source.kind !== "model" || m.source.replayState === undefined
    if (cache !== undefined) {
      const hit = (stateless ? cache.stateless : cache.decoded).get(m.id)
      if (hit !== undefined) {
        out[n++] = hit
        continue
      }
    }
    let native: Native
    if (stateless) {
      native = codec.foreign(m)
      if (cache !== undefined) {
        cache.stateless.set(m.id, native)
        cache.decoded.delete(m.id)
      }
      out[n++] = native
      continue
    }
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
    cache?.decoded.set(m.id, native)
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
          cache?.decoded.set(m.id, native)
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
  const cache: Memo<Native> = { decoded: new Map(), stateless: new Map() }
  return {
    message: (m, options) => Effect.suspend(() => Effect.map(run([m], codec, options, cache), (out) => out[0]!)),
    all: (messages, options) => Effect.suspend(() => run(messages, codec, options, cache)),
    size: () => cache.decoded.size + cache.stateless.size,
  }
}
