/**
 * Shape checks for chunk fields. Chunks reach the reducer from adapters and
 * from logs written by anything, and the reducer must stay total: a chunk whose
 * fields cannot be read is ignored rather than trusted or thrown on. The checks
 * are hand-written because they run on every chunk; each one mirrors the
 * protocol Schema it stands for, and the tests hold them to it.
 */
import type { AssistantBlock, FinishReason, Usage } from "@turnlog/protocol"

/** A block index: a non-negative integer (the protocol's `Index`). */
export const isIndex = (index: unknown): index is number =>
  // The type test comes first: a shift converts an object to a number, which
  // runs its `valueOf`/`toString` and throws when they are not functions. The
  // unsigned shift then accepts every common index in one comparison; the
  // last test covers the rest of the safe-integer range.
  typeof index === "number" && (index >>> 0 === index || (Number.isSafeInteger(index) && index >= 0))

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === "object" && value !== null && !Array.isArray(value)

const isOptionalString = (value: unknown): boolean => value === undefined || typeof value === "string"
const isOptionalCount = (value: unknown): boolean => value === undefined || isCount(value)
const isCount = (value: unknown): boolean => typeof value === "number" && Number.isSafeInteger(value) && value >= 0

/** A text, reasoning or tool-call block as `block-end` carries it. */
export const isAssistantBlock = (block: unknown): block is AssistantBlock => {
  if (!isRecord(block)) return false
  switch (block.type) {
    case "text":
    case "reasoning":
      return typeof block.text === "string"
    case "tool-call":
      return typeof block.id === "string" && typeof block.name === "string" && typeof block.arguments === "string"
    default:
      return false
  }
}

const isFailure = (failure: unknown): boolean =>
  isRecord(failure) && typeof failure.message === "string" && typeof failure.code === "string" &&
  (failure.status === undefined || typeof failure.status === "number") &&
  (failure.retryAfterMs === undefined || typeof failure.retryAfterMs === "number") &&
  isOptionalString(failure.requestId)

export const isFinishReason = (reason: unknown): reason is FinishReason => {
  if (!isRecord(reason)) return false
  switch (reason.kind) {
    case "stop":
    case "tool-calls":
    case "max-tokens":
      return true
    case "aborted":
    case "error":
      return isFailure(reason.failure)
    default:
      return false
  }
}

export const isUsage = (usage: unknown): usage is Usage =>
  isRecord(usage) && isCount(usage.inputTokens) && isCount(usage.outputTokens) &&
  isOptionalCount(usage.cacheReadTokens) && isOptionalCount(usage.cacheWriteTokens) &&
  isOptionalCount(usage.reasoningTokens)
