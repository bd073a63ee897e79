/**
 * Branded identifiers of the durable vocabulary. They are plain strings on the
 * wire and in the log; the brand only keeps them apart in code.
 */
import { randomUUID } from "node:crypto"
import { Schema } from "effect"

export const SessionId = Schema.String.pipe(Schema.brand("SessionId"))
export type SessionId = typeof SessionId.Type

/**
 * The one rule for a session id every store serves: an id names a file (JSONL:
 * `<id>.jsonl`, its lock and sidecars) as well as a row, so it is letters,
 * digits, `.`, `_` and `-`, starting with a letter or digit, at most
 * `SESSION_ID_MAX_LENGTH` characters — far above the 24 of an id turnlog
 * makes, and short enough for every file name built on it.
 */
export const SESSION_ID_MAX_LENGTH = 200

const SESSION_ID_CHARS = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

/**
 * The part of the rule `text` breaks, as a parenthetical for "… is not a
 * session id (…)"; `undefined` when it is an id.
 */
export const sessionIdProblem = (text: string): string | undefined =>
  text.length > SESSION_ID_MAX_LENGTH
    ? `at most ${SESSION_ID_MAX_LENGTH} characters`
    : SESSION_ID_CHARS.test(text)
    ? undefined
    : 'letters, digits, ".", "_" and "-", not first'

export const isSessionId = (text: string): text is SessionId => sessionIdProblem(text) === undefined

export const MessageId = Schema.String.pipe(Schema.brand("MessageId"))
export type MessageId = typeof MessageId.Type

export const CallId = Schema.String.pipe(Schema.brand("CallId"))
export type CallId = typeof CallId.Type

const shortId = (): string => randomUUID().replace(/-/g, "").slice(0, 20)

/** A fresh session id: sortable by creation time, then random. */
export const makeSessionId = (now: Date = new Date()): SessionId =>
  SessionId.make(`${now.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "")}-${shortId().slice(0, 8)}`)

export const makeMessageId = (): MessageId => MessageId.make(`msg_${shortId()}`)
