/**
 * Why a response ended. `max-tokens` matters most: it is the finish on which
 * streamed tool calls are unsafe and dropped (see the assembler).
 */
import { Schema } from "effect"
import { DurableFailureCode } from "./FailureCode.js"

export const Failure = Schema.Struct({
  message: Schema.String,
  /** One of `FailureCode` when this build wrote it; any string read from another build is kept (see `FailureCode.ts`). */
  code: DurableFailureCode,
  status: Schema.optionalWith(Schema.Number, { exact: true }),
  retryAfterMs: Schema.optionalWith(Schema.Number, { exact: true }),
  requestId: Schema.optionalWith(Schema.String, { exact: true }),
  /** The index, in the request's messages, of the message the failure names (a `REPLAY_REJECTED`'s refused message). */
  messageIndex: Schema.optionalWith(Schema.Number.pipe(Schema.int(), Schema.nonNegative()), { exact: true }),
})
export type Failure = typeof Failure.Type

export const FinishStop = Schema.Struct({ kind: Schema.Literal("stop") })
export const FinishToolCalls = Schema.Struct({ kind: Schema.Literal("tool-calls") })
export const FinishMaxTokens = Schema.Struct({ kind: Schema.Literal("max-tokens") })
export const FinishAborted = Schema.Struct({ kind: Schema.Literal("aborted"), failure: Failure })
export const FinishError = Schema.Struct({ kind: Schema.Literal("error"), failure: Failure })

export const FinishReason = Schema.Union(FinishStop, FinishToolCalls, FinishMaxTokens, FinishAborted, FinishError)
export type FinishReason = typeof FinishReason.Type
