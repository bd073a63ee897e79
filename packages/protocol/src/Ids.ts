/**
 * Branded identifiers of the durable vocabulary. They are plain strings on the
 * wire and in the log; the brand only keeps them apart in code.
 */
import { randomUUID } from "node:crypto"
import { Schema } from "effect"

export const SessionId = Schema.String.pipe(Schema.brand("SessionId"))
export type SessionId = typeof SessionId.Type

export const MessageId = Schema.String.pipe(Schema.brand("MessageId"))
export type MessageId = typeof MessageId.Type

export const CallId = Schema.String.pipe(Schema.brand("CallId"))
export type CallId = typeof CallId.Type

const shortId = (): string => randomUUID().replace(/-/g, "").slice(0, 20)

/** A fresh session id: sortable by creation time, then random. */
export const makeSessionId = (now: Date = new Date()): SessionId =>
  SessionId.make(`${now.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "")}-${shortId().slice(0, 8)}`)

export const makeMessageId = (): MessageId => MessageId.make(`msg_${shortId()}`)
