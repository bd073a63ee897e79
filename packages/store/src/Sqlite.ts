/**
 * The SQLite layer: `$TURNLOG_HOME/sessions.db` through `@effect/sql-sqlite-node`.
 * A `sessions` table (the header, plus what `list` shows: the turn count and
 * first user message, updated by the writes that change them, and the time of
 * the row's last change; `list` takes a session's last event time from its
 * events), an `events (session_id, seq, type, time, data)` table keyed
 * by `(session_id, seq)` and a `leases` table for the one writer. WAL with
 * `synchronous=FULL`: a committed transaction is durable. Each flush is one
 * transaction that checks the stored next seq. The schema version is
 * `PRAGMA user_version`; a newer one is refused.
 *
 * A transaction either commits or leaves nothing, so SQLite has no torn tail;
 * every other rule (recovery of an open turn, refusing unknown or damaged
 * events, the seq check) is the shared store logic's or the same as JSONL's.
 */
import { mkdirSync, statSync } from "node:fs"
import { join } from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import type { SqlError } from "@effect/sql/SqlError"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, Either, Layer } from "effect"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import { type Backend, makeCore, type Writer } from "./internal/Core.js"
import { classify } from "./internal/EventLine.js"
import { drop, hold, isLive, newToken } from "./internal/Liveness.js"
import { transaction } from "./internal/SqliteTransaction.js"
import { SessionStore, type SessionSummary, type Unreadable } from "./SessionStore.js"
import {
  SessionCorrupt,
  SessionLocked,
  SessionNotFound,
  StaleWriter,
  type StoreError,
  StoreIOError,
  UnknownEvent,
  UnsupportedVersion,
} from "./StoreError.js"
import { summarize, titleOf } from "./Summary.js"

export interface SqliteOptions {
  /** `$TURNLOG_HOME`: the database is `<home>/sessions.db`. */
  readonly home: string
}

/** The database schema this build reads and writes. */
export const SCHEMA_VERSION = 1

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    cwd TEXT NOT NULL,
    title TEXT,
    updated_at TEXT NOT NULL,
    turns INTEGER NOT NULL,
    first_message TEXT
  )`,
  `CREATE TABLE IF NOT EXISTS events (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    time TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  )`,
  `CREATE TABLE IF NOT EXISTS leases (
    session_id TEXT PRIMARY KEY,
    pid INTEGER NOT NULL,
    token TEXT NOT NULL
  )`,
]

/** Rows per insert statement (SQLite bounds the number of parameters) and per page read. */
const INSERT_ROWS = 500
const PAGE_ROWS = 5000

interface EventRow {
  readonly seq: number
  readonly time: string
  readonly type: string
  readonly data: string
}

interface SessionRow {
  readonly id: string
  readonly version: number
  readonly created_at: string
  readonly cwd: string
  readonly title: string | null
}

const firstTitle = (events: ReadonlyArray<SessionLog.SessionEvent>): string | null => {
  for (const event of events) if (event.type === "user/message") return titleOf(event.data.message)
  return null
}

const countTurns = (events: ReadonlyArray<SessionLog.SessionEvent>): number =>
  events.reduce((n, event) => (event.type === "turn/start" ? n + 1 : n), 0)

export const makeSqlite = (options: SqliteOptions) =>
  Effect.gen(function*() {
    const file = join(options.home, "sessions.db")
    // The driver's own words ("database or disk is full"), not the client's "Failed to execute statement".
    const io = (operation: string) => (error: SqlError) =>
      new StoreIOError({ path: file, operation, cause: error.cause instanceof Error ? error.cause : error })
    yield* Effect.try({
      try: () => mkdirSync(options.home, { recursive: true }),
      catch: (cause) => new StoreIOError({ path: options.home, operation: "create directory", cause }),
    })
    const sql = yield* SqliteClient.make({ filename: file }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.catchAllDefect((cause) => new StoreIOError({ path: file, operation: "open", cause })),
    )
    const inTransaction = transaction(sql)
    // SQLite keeps writing to a database file that was removed (or replaced)
    // while it is open, and nobody can read those writes back: each write
    // first checks that the file it opened is still the one at its path.
    const opened = yield* Effect.try({
      try: () => statSync(file),
      catch: (cause) => new StoreIOError({ path: file, operation: "open", cause }),
    })
    const stillThere = (operation: string) =>
      Effect.try({
        try: () => {
          const now = statSync(file, { throwIfNoEntry: false })
          if (now === undefined || now.ino !== opened.ino || now.dev !== opened.dev) {
            throw new Error("the database file was removed or replaced while the store had it open, so nothing was written")
          }
        },
        catch: (cause) => new StoreIOError({ path: file, operation, cause }),
      })

    yield* Effect.gen(function*() {
      yield* sql`PRAGMA synchronous = FULL`
      // Another process may hold the write lock for a moment (its own flush).
      yield* sql`PRAGMA busy_timeout = 5000`
      const [row] = yield* sql<{ readonly user_version: number }>`PRAGMA user_version`
      const found = row?.user_version ?? 0
      if (found > SCHEMA_VERSION) {
        return yield* new UnsupportedVersion({ file, found, supported: SCHEMA_VERSION, subject: "database schema" })
      }
      if (found < SCHEMA_VERSION) {
        yield* inTransaction(Effect.gen(function*() {
          for (const statement of SCHEMA) yield* sql.unsafe(statement)
          yield* sql.unsafe(`PRAGMA user_version = ${SCHEMA_VERSION}`)
        }))
      }
    }).pipe(Effect.mapError((e) => (e._tag === "SqlError" ? io("open")(e) : e)))

    const headerOf = (row: SessionRow): Either.Either<SessionLog.SessionHeader, StoreError> => {
      if (row.version > SessionLog.LOG_VERSION) {
        return Either.left(new UnsupportedVersion({ file, found: row.version, supported: SessionLog.LOG_VERSION }))
      }
      return Either.right({
        type: "session",
        version: row.version,
        id: row.id as SessionId,
        createdAt: row.created_at,
        cwd: row.cwd,
        ...(row.title !== null ? { title: row.title } : {}),
      })
    }

    const takeLease = (id: SessionId, token: string): Effect.Effect<boolean | number, SqlError> =>
      Effect.gen(function*() {
        for (let attempt = 0; attempt < 5; attempt++) {
          const inserted = yield* sql`INSERT INTO leases (session_id, pid, token) VALUES (${id}, ${process.pid}, ${token})
            ON CONFLICT (session_id) DO NOTHING RETURNING token`
          if (inserted.length === 1) return true
          const [holder] = yield* sql<{ readonly pid: number; readonly token: string }>`
            SELECT pid, token FROM leases WHERE session_id = ${id}`
          if (holder === undefined) continue
          if (isLive(holder)) return holder.pid
          // The holder is gone: replace exactly that holder, so two takers cannot both win.
          const taken = yield* sql`UPDATE leases SET pid = ${process.pid}, token = ${token}
            WHERE session_id = ${id} AND pid = ${holder.pid} AND token = ${holder.token} RETURNING token`
          if (taken.length === 1) return true
        }
        return false
      })

    // One statement per up to INSERT_ROWS events, its text made once per row
    // count. The statement checks the seq itself: its rows go in only if the
    // first one's seq is the stored next seq, so a flush that changes nothing
    // else on the session is this one statement (atomic on its own) — no
    // separate read, and no transaction around it.
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
    const stale = (id: SessionId, gotSeq: number) =>
      Effect.flatMap(
        sql<{ readonly next: number }>`SELECT coalesce(max(seq), 0) + 1 AS next FROM events WHERE session_id = ${id}`,
        ([row]) => new StaleWriter({ sessionId: id, expectedSeq: row?.next ?? 1, gotSeq }),
      )

    const insertEvents = (id: SessionId, events: ReadonlyArray<SessionLog.SessionEvent>) =>
      Effect.suspend(() => {
        let effect: Effect.Effect<void, SqlError | StaleWriter> = Effect.void
        for (let from = 0; from < events.length; from += INSERT_ROWS) {
          const to = Math.min(events.length, from + INSERT_ROWS)
          const params: Array<string | number> = new Array((to - from) * 5 + 2)
          let p = 0
          for (let i = from; i < to; i++) {
            const event = events[i]!
            params[p++] = id
            params[p++] = event.seq
            params[p++] = event.type
            params[p++] = event.time
            params[p++] = JSON.stringify(event.data)
          }
          const firstSeq = events[from]!.seq
          params[p++] = id
          params[p++] = firstSeq
          const insert = Effect.flatMap(sql.unsafe(insertSql(to - from), params).raw, (result) =>
            (result as { readonly changes: number }).changes === to - from ? Effect.void : stale(id, firstSeq))
          effect = Effect.zipRight(effect, insert)
        }
        return effect
      })

    const write = (
      id: SessionId,
      header: SessionLog.SessionHeader,
      events: ReadonlyArray<SessionLog.SessionEvent>,
      first: boolean,
    ): Effect.Effect<void, StoreError> => {
      const last = events[events.length - 1]!
      const turns = countTurns(events)
      const title = firstTitle(events)
      // The session row changes only when what `list` keeps on it does (a turn
      // starts, the first user message arrives): rewriting it on every flush
      // would add a page to every commit. `list` reads the last event's time.
      const row: Effect.Effect<unknown, StoreError | SqlError> | undefined = first
        ? Effect.gen(function*() {
          const created = yield* sql`INSERT INTO sessions ${
            sql.insert({
              id,
              version: header.version,
              created_at: header.createdAt,
              cwd: header.cwd,
              title: header.title ?? null,
              updated_at: last.time,
              turns,
              first_message: title,
            })
          } ON CONFLICT (id) DO NOTHING RETURNING id`
          if (created.length === 0) {
            return yield* new StoreIOError({ path: file, operation: "create", cause: new Error(`session ${id} already exists`) })
          }
        })
        : turns > 0 || title !== null
        ? sql`UPDATE sessions SET updated_at = ${last.time}, turns = turns + ${turns},
            first_message = coalesce(first_message, ${title}) WHERE id = ${id}`
        : undefined
      // One transaction when more than one statement writes; a failure rolls all of them back.
      const effect = row === undefined && events.length <= INSERT_ROWS
        ? insertEvents(id, events)
        : inTransaction(Effect.zipRight(row ?? Effect.void, insertEvents(id, events)))
      const operation = first ? "create" : "append to"
      return Effect.zipRight(stillThere(operation), effect).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(io(operation)(e))))
    }

    const decodeRow = (id: SessionId, row: EventRow, expected: number): SessionLog.SessionEvent => {
      if (row.seq !== expected) {
        throw new SessionCorrupt({ file, sessionId: id, line: row.seq, detail: `expected event seq ${expected}, found ${row.seq}` })
      }
      if (!SessionLog.isEventType(row.type)) throw new UnknownEvent({ file, sessionId: id, line: row.seq, type: row.type })
      let data: unknown
      try {
        data = JSON.parse(row.data)
      } catch {
        throw new SessionCorrupt({ file, sessionId: id, line: row.seq, detail: "the event data is not JSON" })
      }
      const result = classify({ seq: row.seq, time: row.time, type: row.type, data })
      if (result._tag === "Event") return result.event
      throw new SessionCorrupt({
        file,
        sessionId: id,
        line: row.seq,
        detail: result._tag === "Invalid" ? result.detail : "not an event",
      })
    }

    const load = (id: SessionId) =>
      Effect.gen(function*() {
        const [row] = yield* sql<SessionRow>`SELECT id, version, created_at, cwd, title FROM sessions WHERE id = ${id}`
        if (row === undefined) return yield* new SessionNotFound({ sessionId: id })
        const header = yield* headerOf(row)
        const events: Array<SessionLog.SessionEvent> = []
        // Paged, so the rows of a large session are not all held beside their events.
        for (;;) {
          // The first page has no lower bound: a row with seq 0 or below is
          // met (and refused as out of order), not skipped.
          const after = events.length === 0 ? Number.MIN_SAFE_INTEGER : events.length
          const rows = yield* sql<EventRow>`SELECT seq, time, type, data FROM events
            WHERE session_id = ${id} AND seq > ${after} ORDER BY seq LIMIT ${PAGE_ROWS}`
          yield* Effect.try({
            try: () => {
              for (const r of rows) events.push(decodeRow(id, r, events.length + 1))
            },
            catch: (error) => error as StoreError,
          })
          if (rows.length < PAGE_ROWS) break
        }
        return { header, events }
      }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(io("read")(e))))

    const backend: Backend = {
      acquire: (id) =>
        Effect.gen(function*() {
          const token = newToken()
          const taken = yield* takeLease(id, token).pipe(Effect.mapError(io("take the lease in")))
          if (taken !== true) return yield* new SessionLocked({ sessionId: id, pid: taken === false ? 0 : taken })
          hold(token)
          const writer: Writer = {
            write: (header, events, first) => write(id, header, events, first),
            release: sql`DELETE FROM leases WHERE session_id = ${id} AND token = ${token}`.pipe(
              Effect.ignore,
              Effect.ensuring(Effect.sync(() => drop(token))),
            ),
          }
          return writer
        }),
      load: (id) => load(id),
      writerOf: (id) =>
        sql<{ readonly pid: number; readonly token: string }>`SELECT pid, token FROM leases WHERE session_id = ${id}`.pipe(
          Effect.map(([holder]) => (holder !== undefined && isLive(holder) ? holder.pid : undefined)),
          Effect.mapError(io("read the lease in")),
        ),
      list: () =>
        Effect.gen(function*() {
          const rows = yield* sql<{ readonly id: SessionId }>`SELECT id FROM sessions`.pipe(Effect.mapError(io("list")))
          const sessions: Array<SessionSummary> = []
          const unreadable: Array<Unreadable> = []
          // Each session judged by the very pass `read` makes, so a session
          // `read` refuses is named here with the same reason, and one whose
          // events are gone is not listed as if it had them.
          for (const row of rows) {
            const loaded = yield* Effect.either(load(row.id))
            if (Either.isLeft(loaded)) {
              if (loaded.left._tag !== "SessionNotFound") unreadable.push({ id: row.id, error: loaded.left })
              continue
            }
            const summary = summarize(loaded.right.header, loaded.right.events)
            if (summary !== undefined) sessions.push(summary)
          }
          return { sessions, unreadable }
        }),
    }
    return yield* makeCore(backend)
  })

export const layerSqlite = (options: SqliteOptions) => Layer.scoped(SessionStore, makeSqlite(options))
