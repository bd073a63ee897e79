/**
 * The SQLite layer's write of one flush. Events go in with one statement per
 * up to `INSERT_ROWS` rows that checks the seq itself: its rows go in only if
 * the first one's seq is the stored next seq. A flush that changes nothing
 * else on the session is that one statement (atomic on its own, no
 * transaction); one that also creates the session row or changes what `list`
 * keeps on it (a turn starts, the first user message arrives) is one
 * transaction. The session row is not rewritten on every flush: that would
 * add a page to every commit (`list` reads the last event's time).
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type { SessionLog } from "@turnlog/protocol"
import { StaleWriter, StoreIOError } from "../StoreError.js"
import { EVENT_COLUMNS, eventParams, firstTitle, sessionRow, turnsIn } from "./SqliteRows.js"

/** Rows per insert statement (SQLite bounds the number of parameters). */
const INSERT_ROWS = 500

export type InTransaction = <A, E>(body: Effect.Effect<A, E>) => Effect.Effect<A, E | SqlError>

export const makeWrite = (sql: SqlClient, file: string, inTransaction: InTransaction) => {
  // Each statement's text is made once per row count.
  const insertText = new Map<number, string>()
  const insertSql = (rows: number): string => {
    let text = insertText.get(rows)
    if (text === undefined) {
      const values = Array.from({ length: rows }, () => "(?, ?, ?, ?, ?)").join(", ")
      text = `INSERT INTO events (session_id, seq, type, time, data) SELECT * FROM (VALUES ${values})
        WHERE (SELECT coalesce(max(seq), 0) + 1 FROM events WHERE session_id = ?) = ?`
      insertText.set(rows, text)
    }
    return text
  }

  /** The stored next seq of `id` did not match `gotSeq`: say what it is. */
  const stale = (id: string, gotSeq: number) =>
    Effect.flatMap(
      sql<{ readonly next: number }>`SELECT coalesce(max(seq), 0) + 1 AS next FROM events WHERE session_id = ${id}`,
      ([row]) => new StaleWriter({ sessionId: id, expectedSeq: row?.next ?? 1, gotSeq }),
    )

  const insertEvents = (id: string, events: ReadonlyArray<SessionLog.SessionEvent>) =>
    Effect.suspend(() => {
      let effect: Effect.Effect<void, SqlError | StaleWriter> = Effect.void
      for (let from = 0; from < events.length; from += INSERT_ROWS) {
        const to = Math.min(events.length, from + INSERT_ROWS)
        const params: Array<string | number> = new Array((to - from) * EVENT_COLUMNS + 2)
        let p = eventParams(id, events, from, to, params, 0)
        const firstSeq = events[from]!.seq
        params[p++] = id
        params[p] = firstSeq
        const insert = Effect.flatMap(sql.unsafe(insertSql(to - from), params).raw, (result) =>
          (result as { readonly changes: number }).changes === to - from ? Effect.void : stale(id, firstSeq))
        effect = Effect.zipRight(effect, insert)
      }
      return effect
    })

  const createRow = (header: SessionLog.SessionHeader, events: ReadonlyArray<SessionLog.SessionEvent>) =>
    Effect.flatMap(
      sql`INSERT INTO sessions ${sql.insert(sessionRow(header, events))} ON CONFLICT (id) DO NOTHING RETURNING id`,
      (created) =>
        created.length === 1
          ? Effect.void
          : new StoreIOError({ path: file, operation: "create", cause: new Error(`session ${header.id} already exists`) }),
    )

  /** Writes `events` of the session `header` names; `first` creates its row. */
  return (
    header: SessionLog.SessionHeader,
    events: ReadonlyArray<SessionLog.SessionEvent>,
    first: boolean,
  ): Effect.Effect<void, SqlError | StaleWriter | StoreIOError> => {
    const turns = turnsIn(events)
    const title = firstTitle(events)
    const last = events[events.length - 1]
    const row = first
      ? createRow(header, events)
      : last !== undefined && (turns > 0 || title !== null)
      ? sql`UPDATE sessions SET updated_at = ${last.time}, turns = turns + ${turns},
          first_message = coalesce(first_message, ${title}), summary_seq = ${last.seq} WHERE id = ${header.id}`
      : undefined
    if (events.length === 0) return row === undefined ? Effect.void : Effect.asVoid(row)
    if (row === undefined && events.length <= INSERT_ROWS) return insertEvents(header.id, events)
    // One transaction when more than one statement writes; a failure rolls all of them back.
    return inTransaction(Effect.zipRight(row ?? Effect.void, insertEvents(header.id, events)))
  }
}
