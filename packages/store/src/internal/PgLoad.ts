/**
 * The events of a PostgreSQL session: the rows of `events`, read as pages of
 * seq ranges and decoded into log values, refusing what the JSONL layer
 * refuses in the same words, naming the database, the session and the seq.
 *
 * `read` decodes every row. `open`, which continues the session, reads what
 * continuing needs (as the JSONL scan does, see `withoutSettledChunks`): the
 * raw chunk rows of completed steps — any followed by another event — are
 * checked for what the database can vouch for and their data is not
 * transferred: the column is `json`, so the server validated the text when it
 * was stored, and `json_typeof` says it holds an object; the seq is checked
 * in order as for every row. The run of raw chunk rows that ends the session
 * (the step in flight when a process stopped) is read again with its data
 * and decoded in full: an open turn is recovered from it. A chunk row whose
 * data is not an object is fetched with its data and decoded like any other
 * row, so it is refused in the words `read` uses.
 */
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import type { PgClient } from "@effect/sql-pg"
import { Effect, Either, Fiber } from "effect"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import { SessionCorrupt, type StoreError } from "../StoreError.js"
import { type EventRow, eventOf, outOfOrder } from "./EventRows.js"

/** Seqs per page when loading a session. */
const PAGE_ROWS = 5000

/**
 * A row as `open` reads it: `data` is NOT NULL in the schema, so null is the
 * database's word that the row is an intact raw chunk, whose data was not sent.
 */
interface FramedRow {
  readonly seq: number
  readonly time: string
  readonly type: string
  readonly data: string | null
}

const missing = (where: string, id: SessionId, lastSeq: number, stored: number) =>
  new SessionCorrupt({
    file: where,
    sessionId: id,
    line: Math.min(stored, lastSeq) + 1,
    detail: `the session records ${lastSeq} events, ${stored} are stored`,
  })

/**
 * The rows with `after < seq <= upTo` (a missing bound: none), with `data`
 * as the text to send. Pages are ranges of seq, not `LIMIT`s: a planner with
 * stale statistics (fresh tables, a session appended since the last ANALYZE)
 * picks a bitmap scan plus a sort of every row after `after`, which made each
 * LIMIT page read the rest of the session; a range reads its own rows
 * whatever the plan.
 */
const select = <A extends object>(
  sql: PgClient.PgClient,
  id: SessionId,
  after: number | undefined,
  upTo: number | undefined,
  data: Fragment,
) => {
  const lower = after === undefined ? sql.literal("") : sql`AND seq > ${after}`
  const upper = upTo === undefined ? sql.literal("") : sql`AND seq <= ${upTo}`
  return sql<A>`SELECT seq, type, "time", ${data} AS data FROM events
    WHERE session_id = ${id} ${lower} ${upper} ORDER BY seq`
}

/** A page of rows with their data (see `select`). */
export const page = (sql: PgClient.PgClient, id: SessionId, after: number | undefined, upTo: number | undefined) =>
  select<EventRow>(sql, id, after, upTo, sql.literal("data::text"))

/** A page of rows whose intact raw chunks come without their data. */
const framedPage = (sql: PgClient.PgClient, id: SessionId, after: number | undefined, upTo: number | undefined) =>
  select<FramedRow>(
    sql,
    id,
    after,
    upTo,
    sql`CASE WHEN type IN ${sql.in(SessionLog.RAW_CHUNK_TYPES)} AND json_typeof(data) = 'object' THEN NULL ELSE data::text END`,
  )

/**
 * Every event (`repair` false: `read`), or what continuing needs (`repair`
 * true: `open`), of a session whose `sessions` row records `lastSeq` events.
 */
export const loadEvents = (
  sql: PgClient.PgClient,
  where: string,
  id: SessionId,
  lastSeq: number,
  repair: boolean,
): Effect.Effect<Array<SessionLog.SessionEvent>, SqlError | StoreError> =>
  Effect.gen(function*() {
    // Pages of PAGE_ROWS seqs: the first has no lower bound, so a row with seq 0 or
    // below is met (and refused), and the last no upper one, so a row past the
    // recorded end is met too; nothing stored is skipped. Each page is asked for
    // before the one before it is decoded, so the server's work and the decoding
    // overlap; the page in flight is interrupted if anything is refused. The
    // caller read last_seq first: a writer appending meanwhile can only add rows
    // after what it records.
    const fetch = repair ? framedPage : page
    let upTo: number | undefined = PAGE_ROWS < lastSeq ? PAGE_ROWS : undefined
    let next: Fiber.RuntimeFiber<ReadonlyArray<FramedRow>, SqlError> | undefined = yield* Effect.fork(
      fetch(sql, id, undefined, upTo),
    )
    const events: Array<SessionLog.SessionEvent> = []
    // The seq of the last row met, and the first of the run of raw chunks that ends what was met.
    let last = 0
    let run: number | undefined
    while (next !== undefined) {
      const rows: ReadonlyArray<FramedRow> = yield* Fiber.join(next)
      if (upTo === undefined) {
        next = undefined
      } else {
        const after: number = upTo
        upTo = after + PAGE_ROWS < lastSeq ? after + PAGE_ROWS : undefined
        next = yield* Effect.fork(fetch(sql, id, after, upTo))
      }
      // A plain loop: a yield per row would cost more than decoding it.
      for (const r of rows) {
        if (r.data === null) {
          if (r.seq !== last + 1) return yield* outOfOrder(where, id, r.seq, last + 1)
          run ??= r.seq
        } else {
          const event = eventOf(where, id, { seq: r.seq, time: r.time, type: r.type, data: r.data }, last + 1)
          if (Either.isLeft(event)) return yield* event.left
          if (repair && SessionLog.isRawChunk(event.right.type)) {
            run ??= r.seq
          } else {
            run = undefined
            events.push(event.right)
          }
        }
        last = r.seq
      }
    }
    // Every write sets last_seq with its events in one statement: fewer rows than it records is
    // damage. More is damage too, unless a writer committed them while this read: then the
    // row's last_seq has reached them since.
    if (last < lastSeq) return yield* missing(where, id, lastSeq, last)
    if (last > lastSeq) {
      const [now] = yield* sql<{ readonly last_seq: number }>`SELECT last_seq FROM sessions WHERE id = ${id}`
      if (now === undefined || now.last_seq < last) return yield* missing(where, id, now?.last_seq ?? lastSeq, last)
    }
    // The step in flight, read again with its data and decoded in full.
    let expected = run ?? last + 1
    while (expected <= last) {
      const rows = yield* page(sql, id, expected - 1, Math.min(expected - 1 + PAGE_ROWS, last))
      for (const r of rows) {
        const event = eventOf(where, id, r, expected)
        if (Either.isLeft(event)) return yield* event.left
        events.push(event.right)
        expected++
      }
      // Rows taken away since they were met: what is stored is no longer what last_seq records.
      if (rows.length === 0) return yield* missing(where, id, lastSeq, expected - 1)
    }
    return events
  })
