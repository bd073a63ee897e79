/**
 * An `events` row of the database layers (SQLite, PostgreSQL) and the event
 * it holds: one event, its data as JSON text. Reading a row refuses what the
 * JSONL layer refuses, in the same words, naming the database, the session
 * and the event's seq.
 */
import { Either } from "effect"
import { SessionLog } from "@turnlog/protocol"
import { SessionCorrupt, type StoreError, UnknownEvent } from "../StoreError.js"
import { classify } from "./EventLine.js"

export interface EventRow {
  readonly seq: number
  readonly time: string
  readonly type: string
  readonly data: string
}

/** A row met where the session's `expected`th event belongs. */
export const outOfOrder = (file: string, sessionId: string, seq: number, expected: number): SessionCorrupt =>
  new SessionCorrupt({ file, sessionId, line: seq, detail: `expected event seq ${expected}, found ${seq}` })

/** The event an `events` row holds, which must be the session's `expected`th. */
export const eventOf = (
  file: string,
  sessionId: string,
  row: EventRow,
  expected: number,
): Either.Either<SessionLog.SessionEvent, StoreError> => {
  const corrupt = (detail: string) => Either.left(new SessionCorrupt({ file, sessionId, line: row.seq, detail }))
  if (row.seq !== expected) return Either.left(outOfOrder(file, sessionId, row.seq, expected))
  if (!SessionLog.isEventType(row.type)) {
    return Either.left(new UnknownEvent({ file, sessionId, line: row.seq, type: row.type }))
  }
  let data: unknown
  try {
    data = JSON.parse(row.data)
  } catch {
    return corrupt("the event data is not JSON")
  }
  const result = classify({ seq: row.seq, time: row.time, type: row.type, data })
  if (result._tag === "Event") return Either.right(result.event)
  return corrupt(result._tag === "Invalid" ? result.detail : "not an event")
}
