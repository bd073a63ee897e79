/**
 * The events of a SQLite session, read a page of rows at a time so a large
 * session's rows are not all held beside their events.
 *
 * `read` decodes every row. `open`, which continues the session, reads what
 * continuing needs (as the JSONL scan does, see `withoutSettledChunks`): the
 * raw chunk rows of completed steps — any followed by another event — are
 * checked by SQLite itself, their data never brought into JavaScript: the seq
 * in order, the time text, the data text that is valid JSON holding an
 * object. The run of raw chunk rows that ends the session (the step in
 * flight when a process stopped) is read again with its data and decoded in
 * full, as `read` decodes it: an open turn is recovered from it.
 *
 * A chunk row SQLite does not vouch for is fetched with its data and decoded
 * like any other row, so it is refused (or accepted) in the words `read`
 * uses: damage is never skipped.
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Either } from "effect"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import type { StoreError } from "../StoreError.js"
import { type EventRow, eventOf, outOfOrder } from "./SqliteRows.js"

/** Rows per page read. */
const PAGE_ROWS = 5000

/**
 * A row as `open` reads it: `data` is NOT NULL in the schema, so null is
 * SQLite's word that the row is an intact raw chunk, whose data stays in the database.
 */
interface FramedRow {
  readonly seq: number
  readonly time: string
  readonly type: string
  readonly data: string | null
}

/**
 * Decodes the rows after `after` (up to `upTo`, when given) into `events`;
 * the first must have seq `expected`. A whole read has no lower bound, so a
 * row with seq 0 or below is met (and refused as out of order), not skipped.
 */
const decodeRows = (
  sql: SqlClient,
  file: string,
  id: SessionId,
  after: number,
  expected: number,
  upTo: number | undefined,
  events: Array<SessionLog.SessionEvent>,
): Effect.Effect<void, SqlError | StoreError> =>
  Effect.gen(function*() {
    const bound = upTo === undefined ? sql.literal("") : sql`AND seq <= ${upTo}`
    for (;;) {
      const rows = yield* sql<EventRow>`SELECT seq, time, type, data FROM events
        WHERE session_id = ${id} AND seq > ${after} ${bound} ORDER BY seq LIMIT ${PAGE_ROWS}`
      for (const r of rows) {
        events.push(yield* eventOf(file, id, r, expected))
        expected++
        after = r.seq
      }
      if (rows.length < PAGE_ROWS) return
    }
  })

/**
 * Every event (`repair` false: `read`), or what continuing needs (`repair`
 * true: `open`), of a session whose `sessions` row was found.
 */
export const loadEvents = (
  sql: SqlClient,
  file: string,
  id: SessionId,
  repair: boolean,
): Effect.Effect<Array<SessionLog.SessionEvent>, SqlError | StoreError> =>
  Effect.gen(function*() {
    const events: Array<SessionLog.SessionEvent> = []
    if (!repair) {
      yield* decodeRows(sql, file, id, Number.MIN_SAFE_INTEGER, 1, undefined, events)
      return events
    }
    const chunkTypes = sql.in(SessionLog.RAW_CHUNK_TYPES)
    // The seq of the last row met, and the first of the run of raw chunks that ends what was met.
    let last = 0
    let run: number | undefined
    for (;;) {
      const after = last === 0 ? Number.MIN_SAFE_INTEGER : last
      // json_type raises on malformed JSON: it is asked only of text json_valid accepts.
      const rows = yield* sql<FramedRow>`SELECT seq, time, type,
          CASE WHEN type IN ${chunkTypes} AND typeof(time) = 'text' AND typeof(data) = 'text'
            AND CASE WHEN json_valid(data) THEN json_type(data) = 'object' ELSE 0 END
          THEN NULL ELSE data END AS data
        FROM events WHERE session_id = ${id} AND seq > ${after} ORDER BY seq LIMIT ${PAGE_ROWS}`
      for (const r of rows) {
        if (r.data === null) {
          if (r.seq !== last + 1) return yield* outOfOrder(file, id, r.seq, last + 1)
          run ??= r.seq
        } else {
          const event = eventOf(file, id, { seq: r.seq, time: r.time, type: r.type, data: r.data }, last + 1)
          if (Either.isLeft(event)) return yield* event.left
          // A chunk decoded here (one SQLite could not vouch for, yet valid) is still part of its step.
          if (SessionLog.isRawChunk(event.right.type)) {
            run ??= r.seq
          } else {
            run = undefined
            events.push(event.right)
          }
        }
        last = r.seq
      }
      if (rows.length < PAGE_ROWS) break
    }
    // The step in flight, up to the last row met: a row stored since is not this open's.
    if (run !== undefined) yield* decodeRows(sql, file, id, run - 1, run, last, events)
    return events
  })
