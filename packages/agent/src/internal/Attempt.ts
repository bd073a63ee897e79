/**
 * One provider attempt: the adapter's chunk stream, each chunk logged and then
 * folded through the assembler, text and reasoning sent on live. The stream
 * ends at the provider's `finish`, at the user's cancel (closing it aborts the
 * HTTP request), when it stays quiet for too long, or when the answer passes
 * its size bound (`AnswerLimit`).
 */
import { Duration, Effect, Stream } from "effect"
import { Assembler } from "@turnlog/assembler"
import type { LlmAdapter } from "@turnlog/llm"
import type { StreamChunk } from "@turnlog/protocol"
import type { StoreError } from "@turnlog/store"
import * as AnswerLimit from "./AnswerLimit.js"
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
    AnswerLimit.bounded(deps.config.maxAnswerChars, deps.journal.route),
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
