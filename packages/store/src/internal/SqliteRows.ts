/**
 * The SQLite layer's rows and the log values they hold: a `sessions` row is a
 * session header plus what `list` shows (turn count, first user message, time
 * of the row's last change, and `summary_seq`, the last event those counters
 * have seen); an `events` row is one event, its data as JSON
 * text. Reading a row refuses what the JSONL layer refuses, in the same words,
 * naming the database, the session and the event's seq (which rows are read,
 * and how far, is `SqliteLoad.ts`'s).
 */
import { Either } from "effect"
import { SessionId, SessionLog } from "@turnlog/protocol"
import { type StoreError, UnsupportedVersion } from "../StoreError.js"
import { firstTitle, turnsIn } from "../Summary.js"

export { type EventRow, eventOf, outOfOrder } from "./EventRows.js"

export interface SessionRow {
  readonly id: string
  readonly version: number
  readonly created_at: string
  readonly cwd: string
  readonly title: string | null
}

/** The header a `sessions` row holds; a newer log version is refused as newer. */
export const headerOf = (file: string, row: SessionRow): Either.Either<SessionLog.SessionHeader, StoreError> =>
  row.version > SessionLog.LOG_VERSION
    ? Either.left(new UnsupportedVersion({ file, found: row.version, supported: SessionLog.LOG_VERSION }))
    : Either.right({
      type: "session",
      version: row.version,
      id: SessionId.make(row.id),
      createdAt: row.created_at,
      cwd: row.cwd,
      ...(row.title !== null ? { title: row.title } : {}),
    })

/** The `sessions` row of a new session. `events` may be empty: the row then dates from the header. */
export const sessionRow = (
  header: SessionLog.SessionHeader,
  events: ReadonlyArray<SessionLog.SessionEvent>,
) => ({
  id: header.id,
  version: header.version,
  created_at: header.createdAt,
  cwd: header.cwd,
  title: header.title ?? null,
  updated_at: events[events.length - 1]?.time ?? header.createdAt,
  turns: turnsIn(events),
  first_message: firstTitle(events),
  summary_seq: events[events.length - 1]?.seq ?? 0,
})

export { firstTitle, turnsIn }

/** Columns per `events` row, in the order `eventParams` gives them. */
export const EVENT_COLUMNS = 5

/** Writes the parameters of `events[from..to)` as rows of `id` into `params` from `p`; returns the next index. */
export const eventParams = (
  id: string,
  events: ReadonlyArray<SessionLog.SessionEvent>,
  from: number,
  to: number,
  params: Array<string | number>,
  p: number,
): number => {
  for (let i = from; i < to; i++) {
    const event = events[i]!
    params[p++] = id
    params[p++] = event.seq
    params[p++] = event.type
    params[p++] = event.time
    params[p++] = JSON.stringify(event.data)
  }
  return p
}
