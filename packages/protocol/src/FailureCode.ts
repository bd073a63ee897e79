/**
 * The closed set of codes a `Failure` carries, and which of them are worth
 * another attempt. Every adapter, the agent loop and the scripted model build
 * their failures from this set, so a misspelt code fails to compile instead
 * of silently turning a retryable failure into a final one.
 *
 * Durable data stays readable. A log written by another build (older, newer,
 * or a scripted-model file written by hand) may hold a code this build does
 * not know. The durable `Failure.code` therefore decodes any string: a known
 * one becomes its `FailureCode`, any other is kept verbatim as a
 * `ForeignFailureCode` (a branded string). The brand is what keeps the set
 * closed where failures are built: a plain string, or a literal outside the
 * set, is not assignable to it, so only decoding produces one. A foreign code
 * is never transient; the loop treats it like any failure it has no special
 * handling for, and it is written back unchanged.
 */
import { Schema } from "effect"

/** Every code a failure built by this build can carry. */
export const FailureCode = Schema.Literal(
  // Classified from the provider's answer (status, error body, message text).
  "AUTH",
  "RATE_LIMIT",
  "INVALID_REQUEST",
  "SERVER",
  "TIMEOUT",
  "TRANSPORT",
  /** The request did not fit the model's context window: compact, then retry. */
  "CONTEXT_WINDOW_EXCEEDED",
  /** The provider refused replayed metadata (a signature, an encrypted reasoning item): send it provider-neutral. */
  "REPLAY_REJECTED",
  "PROVIDER_ERROR",
  // Before a request is sent: the route names no configured model, or its key is missing.
  "MISSING_CREDENTIAL",
  "UNKNOWN_ROUTE",
  // The stream itself.
  "EMPTY_RESPONSE",
  "STREAM_CLOSED",
  "ABORTED",
  // The agent loop and the scripted model.
  "CANCELLED",
  "SCRIPT_EXHAUSTED",
  "ANSWER_TOO_LARGE",
  "PROMPT_TOO_LARGE",
  /** The tools offered (an MCP server's thousands) leave no room for a prompt in the window. */
  "TOOLS_TOO_LARGE",
  /** The prompt holds an image and the model's entry says it takes text only. */
  "IMAGES_UNSUPPORTED",
  "COMPACTION_FAILED",
  "INVALID_SETTINGS",
)
export type FailureCode = typeof FailureCode.Type

/** A code read from durable data that this build does not know, kept verbatim. */
export const ForeignFailureCode = Schema.String.pipe(Schema.brand("ForeignFailureCode"))
export type ForeignFailureCode = typeof ForeignFailureCode.Type

/** The durable form: any string decodes, the known ones to their `FailureCode`. */
export const DurableFailureCode = Schema.Union(FailureCode, ForeignFailureCode)
export type DurableFailureCode = typeof DurableFailureCode.Type

/** Whether a string is one of this build's codes. */
export const isFailureCode = (code: string): code is FailureCode => (FailureCode.literals as ReadonlyArray<string>).includes(code)

/** Codes on which nothing about the request was wrong: the same request may succeed later. */
export const TRANSIENT_CODES: ReadonlySet<FailureCode> = new Set<FailureCode>(["RATE_LIMIT", "SERVER", "TRANSPORT", "TIMEOUT"])

/** Whether a failure with this code is worth another attempt of the same request. */
export const isTransient = (code: DurableFailureCode): boolean => isFailureCode(code) && TRANSIENT_CODES.has(code)

/**
 * Whether a failure carries `code`. Comparing `failure.code === "…"` directly
 * would compile with a misspelt literal (a foreign code is any string); here the
 * code must be one of the set.
 */
export const hasCode = (failure: { readonly code: DurableFailureCode }, code: FailureCode): boolean => failure.code === code
