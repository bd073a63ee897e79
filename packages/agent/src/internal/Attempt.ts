/**
 * One provider attempt: the adapter's chunk stream, each chunk logged and then
 * folded through the assembler, text and reasoning sent on live. The stream
 * ends at the provider's `finish`, at the user's cancel (closing it aborts the
 * HTTP request), or when it stays quiet for too long.
 */
import { Duration, Effect, Stream } from "effect"
import { Assembler } from "@turnlog/assembler"
import type { LlmAdapter } from "@turnlog/llm"
import type { StreamChunk } from "@turnlog/protocol"
import type { StoreError } from "@turnlog/store"
import type { TurnDeps } from "./TurnContext.js"

/** What one attempt streamed. */
export interface Streamed {
  readonly state: Assembler.State
  /** Something the user saw was streamed: a retry would show it twice. */
  readonly sawContent: boolean
  /** The provider's `finish` arrived (or the idle timeout stood in for it). */
  readonly sawFinish: boolean
}

export const empty: Streamed = { state: Assembler.initial, sawContent: false, sawFinish: false }

/** Whether a chunk carries something the user saw. */
const isContent = (chunk: StreamChunk): boolean => {
  switch (chunk.type) {
    case "text-delta":
    case "reasoning-delta":
      return chunk.text !== ""
    case "tool-call-delta":
    case "block-end":
      return true
    case "block-start":
    case "usage":
    case "finish":
      return false
  }
}

/** The attempt after one more chunk. */
export const fold = (streamed: Streamed, chunk: StreamChunk): Streamed => ({
  state: Assembler.step(streamed.state, chunk),
  sawContent: streamed.sawContent || isContent(chunk),
  sawFinish: streamed.sawFinish || chunk.type === "finish",
})

/**
 * What ends an attempt whose stream went quiet: a connection that stays open
 * and sends nothing would otherwise hold the turn for as long as the HTTP
 * client waits (minutes). It is a transient failure: retried while nothing
 * was shown, else the turn ends with it.
 */
export const stalled = (provider: string, idleTimeoutMs: number): StreamChunk => ({
  type: "finish",
  reason: {
    kind: "error",
    failure: {
      code: "TIMEOUT",
      message: `${provider} sent nothing for ${idleTimeoutMs / 1000} s; the request was abandoned`,
    },
  },
})

export const ANSWER_TOO_LARGE = "ANSWER_TOO_LARGE"

/** The characters a chunk adds to the answer. */
const sizeOf = (chunk: StreamChunk): number => {
  switch (chunk.type) {
    case "text-delta":
    case "reasoning-delta":
      return chunk.text.length
    case "tool-call-delta":
      return chunk.argumentsDelta.length
    case "block-start":
    case "block-end":
    case "usage":
    case "finish":
      return 0
  }
}

/** A delta cut to its first `chars` characters. */
const cutTo = (chunk: StreamChunk, chars: number): StreamChunk => {
  switch (chunk.type) {
    case "text-delta":
    case "reasoning-delta":
      return { ...chunk, text: chunk.text.slice(0, chars) }
    case "tool-call-delta":
      return { ...chunk, argumentsDelta: chunk.argumentsDelta.slice(0, chars) }
    default:
      return chunk
  }
}

/** The finish of an answer that streamed past `limit` characters. */
export const tooLarge = (route: { readonly provider: string; readonly model: string }, limit: number): StreamChunk => ({
  type: "finish",
  reason: {
    kind: "error",
    failure: {
      code: ANSWER_TOO_LARGE,
      message: `the answer from ${route.provider}/${route.model} was too large: it passed ${limit} characters, ` +
        `so the request was abandoned and its first ${limit} characters were kept`,
    },
  },
})

/**
 * The stream held to `limit` characters of answer: the delta that passes it
 * is cut there and followed by a `tooLarge` finish, which ends the stream
 * (closing it aborts the request). Nothing past the limit is logged, shown or
 * assembled, so no string the answer makes grows without bound.
 */
const bounded = (deps: TurnDeps) => (stream: Stream.Stream<StreamChunk>): Stream.Stream<StreamChunk> =>
  Stream.suspend(() => {
    const limit = deps.config.maxAnswerChars
    let size = 0
    return stream.pipe(
      Stream.mapConcat((chunk): ReadonlyArray<StreamChunk> => {
        const added = sizeOf(chunk)
        if (size + added <= limit) {
          size += added
          return [chunk]
        }
        const room = limit - size
        size = limit
        const end = tooLarge(deps.journal.route, limit)
        return room > 0 ? [cutTo(chunk, room), end] : [end]
      }),
      Stream.takeUntil((chunk) => chunk.type === "finish"),
    )
  })

/** Logs a chunk (the raw chunk is the evidence, whatever assembly makes of it), then shows what it shows. */
const record = (deps: TurnDeps, chunk: StreamChunk, show: boolean): Effect.Effect<void, StoreError.StoreError> =>
  Effect.zipRight(
    // Held for the next batch at most: what is shown is never delayed by the log.
    deps.writer.chunk(chunk),
    show && (chunk.type === "text-delta" || chunk.type === "reasoning-delta")
      ? deps.emit({ type: chunk.type, text: chunk.text })
      : Effect.void,
  )

/** The attempt's chunks, ending at a quiet spell (as a logged `TIMEOUT` failure) or the cancel. */
export const chunks = (deps: TurnDeps, request: LlmAdapter.LlmRequest): Stream.Stream<StreamChunk> => {
  const idle = deps.config.streamIdleTimeoutMs
  return deps.adapter.stream(request).pipe(
    bounded(deps),
    // Quiet for too long: the request is dropped (closing its stream aborts
    // it) and the attempt ends with a logged failure, like any other.
    Stream.timeoutTo(Duration.millis(idle), Stream.succeed(stalled(deps.journal.route.provider, idle))),
    Stream.interruptWhenDeferred(deps.cancel),
  )
}

/**
 * Streams one attempt to its end and returns what it streamed. `show: false`
 * logs the chunks without showing them (a compaction's summary is not the answer).
 */
export const run = (
  deps: TurnDeps,
  request: LlmAdapter.LlmRequest,
  show: boolean = true,
): Effect.Effect<Streamed, StoreError.StoreError> =>
  chunks(deps, request).pipe(
    Stream.runFoldEffect(empty, (streamed, chunk) => Effect.map(record(deps, chunk, show), () => fold(streamed, chunk))),
  )
