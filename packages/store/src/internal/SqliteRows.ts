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
import { SessionCorrupt, type StoreError, UnknownEvent, UnsupportedVersion } from "../StoreError.js"
import { firstTitle, turnsIn } from "../Summary.js"
import { classify } from "./EventLine.js"

export interface EventRow {
  readonly seq: number
  readonly time: string
  readonly type: string
  readonly data: string
}

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
