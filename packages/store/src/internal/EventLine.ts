/**
 * One line of a log (or one stored row) to a validated event, through the
 * protocol schemas: `JSON.parse` once, then the compiled guard of the event's
 * own type. The explaining decoder runs only for a line that fails, to say why.
 * Shared by the JSONL and SQLite layers so both refuse the same data.
 */
import { Either, ParseResult, Schema } from "effect"
import { SessionLog } from "@turnlog/protocol"
import type { Streamed } from "./StreamedRefs.js"
import { compileGuard, type Guard } from "./tuned/Guard.js"

export type LineResult =
  | { readonly _tag: "Event"; readonly event: SessionLog.SessionEvent }
  /** Not JSON at all: the shape of a torn write. */
  | { readonly _tag: "Unparsable" }
  /** An event type this build does not know. */
  | { readonly _tag: "Unknown"; readonly type: string }
  /** JSON, but not an event of this version. */
  | { readonly _tag: "Invalid"; readonly detail: string }

const guards: Record<string, Guard> = {}
// Per-type decoders explain a refused line in terms of its own type, not the
// whole union of event types.
const decoders: Record<string, (u: unknown) => Either.Either<unknown, ParseResult.ParseError>> = {}
for (const member of SessionLog.SessionEvent.members as ReadonlyArray<typeof SessionLog.SessionEvent.members[number]>) {
  guards[member.fields.type.literals[0]] = compileGuard(member as Schema.Schema<unknown>)
  decoders[member.fields.type.literals[0]] = Schema.decodeUnknownEither(member as Schema.Schema<unknown>)
}

/** Whether an event type is a raw chunk (see `SessionLog.isRawChunk`, the one place that names them). */
export const isRawChunk = SessionLog.isRawChunk

/**
 * The events `open` returns: every one except the raw chunks of completed
 * steps (a raw chunk followed by any other event; the run of raw chunks that
 * ends the log is the step in flight, and stays).
 */
export const withoutSettledChunks = (
  events: ReadonlyArray<SessionLog.SessionEvent>,
): ReadonlyArray<SessionLog.SessionEvent> => {
  let tail = events.length
  while (tail > 0 && isRawChunk(events[tail - 1]!.type)) tail--
  let settled = 0
  for (let i = 0; i < tail; i++) if (isRawChunk(events[i]!.type)) settled++
  if (settled === 0) return events
  const kept: Array<SessionLog.SessionEvent> = []
  for (let i = 0; i < events.length; i++) if (i >= tail || !isRawChunk(events[i]!.type)) kept.push(events[i]!)
  return kept
}

const unparsable: LineResult = { _tag: "Unparsable" }

/** The longest part of a value a refusal quotes: a hostile line must not fill the terminal. */
const QUOTE_LIMIT = 120

/**
 * A decode failure as one sentence: where the first problem is (the path in
 * the value) and what it is, the value quoted short.
 */
export const oneSentence = (error: ParseResult.ParseError): string => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (issue === undefined) return "not valid"
  const text = issue.message.replace(/\s+/g, " ")
  const message = text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text
  return issue.path.length === 0 ? message : `${issue.path.join(".")}: ${message}`
}

/** Why a value is not an event, in one sentence of the schema's words. */
export const explain = (value: unknown): string => {
  const type = typeof value === "object" && value !== null ? (value as { readonly type?: unknown }).type : undefined
  const decode = (typeof type === "string" ? decoders[type] : undefined) ?? SessionLog.decodeEvent
  let result: Either.Either<unknown, ParseResult.ParseError>
  try {
    result = decode(value)
  } catch {
    // The schema's message formatter can throw on hostile values (an object
    // whose `toString` is not a function): the line is still refused.
    return "not an event of this version (a value in it cannot even be displayed)"
  }
  if (Either.isRight(result)) return "not an event of this version"
  try {
    return `not a valid ${typeof type === "string" ? type : "event"} event: ${oneSentence(result.left)}`
  } catch {
    return "not an event of this version (a value in it cannot even be displayed)"
  }
}

/** Classifies a parsed value (a stored row's data, or a parsed line). */
export const classify = (value: unknown): LineResult => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { _tag: "Invalid", detail: "expected an event object" }
  }
  const type = (value as { readonly type?: unknown }).type
  if (typeof type !== "string") return { _tag: "Invalid", detail: "the event has no type" }
  const guard = guards[type]
  if (guard === undefined) {
    return SessionLog.isEventType(type) ? { _tag: "Invalid", detail: explain(value) } : { _tag: "Unknown", type }
  }
  return guard(value)
    ? { _tag: "Event", event: value as SessionLog.SessionEvent }
    : { _tag: "Invalid", detail: explain(value) }
}

/**
 * A parsed line of a log read in order: its references to what its request
 * streamed resolved through `streamed` (see `StreamedRefs`), which moves past
 * it, then classified.
 */
export const decodeWith = (streamed: Streamed, value: unknown): LineResult => {
  const problem = streamed.decode(value)
  return problem === undefined ? classify(value) : { _tag: "Invalid", detail: problem }
}

/** The event types whose version-4 lines are not the event itself (see `StreamedRefs`). */
const ENCODED: ReadonlySet<unknown> = new Set(["assistant/chunks", "assistant/message", "tool/call"])

/**
 * A parsed line after an unreadable one: judged only for whether it is a
 * complete event (which makes the unreadable line damage, not a torn tail).
 * A version-4 line that cannot be decoded past the damage is still one.
 */
export const committedAfterDamage = (value: unknown): LineResult => {
  const result = classify(value)
  if (result._tag !== "Invalid" || typeof value !== "object" || value === null) return result
  const line = value as { readonly seq?: unknown; readonly time?: unknown; readonly type?: unknown; readonly data?: unknown }
  return ENCODED.has(line.type) && typeof line.seq === "number" && typeof line.time === "string" &&
      typeof line.data === "object" && line.data !== null
    ? { _tag: "Event", event: value as SessionLog.SessionEvent }
    : result
}

/** `judge` of a line's JSON, or `Unparsable`. */
const parsed = (line: string, judge: (value: unknown) => LineResult): LineResult => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return unparsable
  }
  return judge(value)
}

/** A line after an unreadable one (see `committedAfterDamage`). */
export const decodeAfterDamage = (line: string): LineResult => parsed(line, committedAfterDamage)

/** One line (of a log read in order, through `streamed` when given). */
export const decodeLine = (line: string, streamed?: Streamed): LineResult =>
  parsed(line, streamed === undefined ? classify : (value) => decodeWith(streamed, value))
