/**
 * The SQLite layer: `$TURNLOG_HOME/sessions.db` through `@effect/sql-sqlite-node`,
 * WAL with `synchronous=FULL` (a committed transaction is durable). Its parts:
 * the versioned schema (`internal/SqliteSchema.ts`), rows ↔ log values
 * (`internal/SqliteRows.ts`), the write of a flush (`internal/SqliteWrite.ts`),
 * the lease row (`internal/SqliteLease.ts`) and a transaction whose every
 * outcome is a typed error (`internal/SqliteTransaction.ts`). This module
 * maps them onto the shared store logic and maps database failures to
 * `StoreIOError` once.
 *
 * A transaction either commits or leaves nothing, so SQLite has no torn tail;
 * every other rule (recovery of an open turn, refusing unknown or damaged
 * events, the seq check) is the shared store logic's or the same as JSONL's.
 * Reading changes nothing: the schema is made by the first write.
 *
 * `read` decodes every event row; `open` reads what continuing needs (see
 * `internal/SqliteLoad.ts`): the raw chunk rows of completed steps are checked
 * by SQLite for integrity (seq, intact JSON data) without their data leaving
 * the database, the rest decoded in full. `list` reads the `sessions` rows,
 * the catalog kept with the events (see `internal/Catalog.ts`), not the
 * events: a damaged event row is found by `read`, `open` and `doctor`.
 */
import { mkdirSync, statSync } from "node:fs"
import { join } from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlError } from "@effect/sql/SqlError"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, Either, Layer } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { type Backend, makeCore, type Writer } from "./internal/Core.js"
import { drop, hold, newToken } from "./internal/Liveness.js"
import { give, liveHolder, liveHolders, take } from "./internal/SqliteLease.js"
import { loadEvents } from "./internal/SqliteLoad.js"
import { type EventRow, eventOf, headerOf, type SessionRow } from "./internal/SqliteRows.js"
import { migrate, SCHEMA_VERSION, versionOf } from "./internal/SqliteSchema.js"
import { transaction } from "./internal/SqliteTransaction.js"
import { makeWrite } from "./internal/SqliteWrite.js"
import { POLL, type Tail } from "./internal/Streaming.js"
import { fromCatalog, type Judged, listCatalog } from "./internal/Catalog.js"
import { SessionStore } from "./SessionStore.js"
import { type Holder, SessionLocked, SessionNotFound, type StoreError, StoreIOError } from "./StoreError.js"

export { SCHEMA_VERSION }

export interface SqliteOptions {
  /** `$TURNLOG_HOME`: the database is `<home>/sessions.db`. */
  readonly home: string
  /** The program named in the lease rows this store writes (`Holder.program`). */
  readonly program?: string
}

interface CatalogRow extends SessionRow {
  readonly turns: number
  readonly first_message: string | null
  readonly last_time: string | null
  /** The type of the last `turn/start` or `turn/end`: the last turn is open when it is a start. */
  readonly last_turn: string | null
  /** 1 when the row's counters may be behind its events. */
  readonly behind: number
}

/** Rows per page of a streaming read. */
const STREAM_ROWS = 500

export const makeSqlite = (options: SqliteOptions) =>
  Effect.gen(function*() {
    const file = join(options.home, "sessions.db")
    // The driver's own words ("database or disk is full"), not the client's "Failed to execute statement".
    const io = (operation: string) => (error: SqlError) =>
      new StoreIOError({ path: file, operation, cause: error.cause instanceof Error ? error.cause : error })
    const ioErrors = (operation: string) => <A, E>(effect: Effect.Effect<A, E>) =>
      Effect.catchIf(effect, (e): e is Extract<E, SqlError> => e instanceof SqlError, (e) => Effect.fail(io(operation)(e)))
    yield* Effect.try({
      try: () => mkdirSync(options.home, { recursive: true }),
      catch: (cause) => new StoreIOError({ path: options.home, operation: "create directory", cause }),
    })
    // WAL is set by the first write (see SqliteSchema): opening to read writes nothing.
    const sql = yield* SqliteClient.make({ filename: file, disableWAL: true }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.catchAllDefect((cause) => new StoreIOError({ path: file, operation: "open", cause })),
    )
    const inTransaction = transaction(sql)
    // One connection: a statement another session issued between a transaction's BEGIN and COMMIT
    // would join that transaction (and be rolled back with it). Whatever writes, or lists what is
    // written, runs alone; the driver is synchronous, so nothing runs beside it anyway.
    const exclusive = Effect.unsafeMakeSemaphore(1).withPermits(1)
    yield* Effect.gen(function*() {
      yield* sql`PRAGMA synchronous = FULL`
      // Another process may hold the write lock for a moment (its own flush).
      yield* sql`PRAGMA busy_timeout = 5000`
    }).pipe(Effect.mapError(io("open")))
    let version = yield* versionOf(sql, file).pipe(ioErrors("open"))
    // Another process may create the schema after this one opened the file.
    const hasSchema = Effect.suspend(() => version > 0 ? Effect.succeed(true) : Effect.map(versionOf(sql, file), (found) => (version = found) > 0))
    const writable = Effect.suspend(() =>
      version === SCHEMA_VERSION
        ? Effect.void
        : Effect.tap(migrate(sql, file, inTransaction), () => Effect.sync(() => (version = SCHEMA_VERSION)))
    )

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

    const writeRows = makeWrite(sql, file, inTransaction)
    const write = (
      header: SessionLog.SessionHeader,
      events: ReadonlyArray<SessionLog.SessionEvent>,
      first: boolean,
    ): Effect.Effect<void, StoreError> => {
      const operation = first ? "create" : "append to"
      return exclusive(Effect.zipRight(stillThere(operation), writeRows(header, events, first))).pipe(ioErrors(operation))
    }

    const load = (
      id: SessionId,
      repair: boolean,
    ): Effect.Effect<{ header: SessionLog.SessionHeader; events: Array<SessionLog.SessionEvent> }, StoreError> =>
      Effect.gen(function*() {
        if (!(yield* hasSchema)) return yield* new SessionNotFound({ sessionId: id })
        const [row] = yield* sql<SessionRow>`SELECT id, version, created_at, cwd, title FROM sessions WHERE id = ${id}`
        if (row === undefined) return yield* new SessionNotFound({ sessionId: id })
        const header = yield* headerOf(file, row)
        return { header, events: yield* loadEvents(sql, file, id, repair) }
      }).pipe(ioErrors("read"))

    // A session list judges a session by the pass `read` makes.
    const readAll = (id: SessionId) => load(id, false)

    const header = (id: SessionId): Effect.Effect<SessionLog.SessionHeader, StoreError> =>
      Effect.gen(function*() {
        if (!(yield* hasSchema)) return yield* new SessionNotFound({ sessionId: id })
        const [row] = yield* sql<SessionRow>`SELECT id, version, created_at, cwd, title FROM sessions WHERE id = ${id}`
        if (row === undefined) return yield* new SessionNotFound({ sessionId: id })
        return yield* headerOf(file, row)
      }).pipe(ioErrors("read"))

    // Keyset pages after the last seq read; the first page of a whole read has
    // no lower bound, so a row with seq 0 or below is met (and refused), not skipped.
    const tail = (id: SessionId, fromSeq: number): Effect.Effect<Tail, StoreError> =>
      Effect.map(header(id), () => {
        let last = fromSeq <= 1 ? undefined : fromSeq - 1
        return {
          next: Effect.gen(function*() {
            const after = last ?? Number.MIN_SAFE_INTEGER
            const rows = yield* sql<EventRow>`SELECT seq, time, type, data FROM events
              WHERE session_id = ${id} AND seq > ${after} ORDER BY seq LIMIT ${STREAM_ROWS}`
            const events: Array<SessionLog.SessionEvent> = []
            for (const r of rows) {
              events.push(yield* eventOf(file, id, r, (last ?? 0) + 1))
              last = r.seq
            }
            return events
          }).pipe(ioErrors("read")),
          pending: () => undefined,
        }
      })

    const judge = (row: CatalogRow): Judged => {
      if (row.behind !== 0) return { _tag: "Load" }
      const header = headerOf(file, row)
      return Either.isLeft(header)
        ? { _tag: "Unreadable", error: header.left }
        : {
          _tag: "Listed",
          summary: fromCatalog(header.right, {
            updatedAt: row.last_time,
            turns: row.turns,
            firstMessage: row.first_message,
            openTurn: row.last_turn === "turn/start",
          }),
        }
    }

    const backend: Backend = {
      ...(options.program !== undefined ? { program: options.program } : {}),
      streaming: { header, tail, pollInterval: POLL },
      acquire: (id) =>
        Effect.gen(function*() {
          yield* exclusive(writable).pipe(ioErrors("create the schema in"))
          const token = newToken()
          const taken = yield* exclusive(take(sql, id, token, options.program)).pipe(Effect.mapError(io("take the lease in")))
          if (taken !== true) return yield* new SessionLocked({ sessionId: id, holder: taken })
          hold(token)
          const writer: Writer = {
            write,
            release: exclusive(give(sql, id, token)).pipe(Effect.ignore, Effect.ensuring(Effect.sync(() => drop(token)))),
            // One transaction: the events and the session row go together, or nothing does.
            remove: exclusive(Effect.zipRight(
              stillThere("delete"),
              inTransaction(Effect.gen(function*() {
                if (!(yield* hasSchema)) return false
                yield* sql`DELETE FROM events WHERE session_id = ${id}`
                const removed = yield* sql`DELETE FROM sessions WHERE id = ${id} RETURNING id`
                return removed.length > 0
              })),
            )).pipe(ioErrors("delete")),
          }
          return writer
        }),
      load,
      holderOf: (id) =>
        Effect.flatMap(hasSchema, (has) => (has ? liveHolder(sql, id) : Effect.succeed(undefined))).pipe(
          ioErrors("read the lease in"),
        ),
      holders: () =>
        Effect.flatMap(hasSchema, (has) => (has ? liveHolders(sql) : Effect.succeed(new Map<string, Holder>()))).pipe(
          Effect.map((live) => live as ReadonlyMap<SessionId, Holder>),
          ioErrors("read the leases in"),
        ),
      list: () =>
        exclusive(Effect.gen(function*() {
          if (!(yield* hasSchema.pipe(ioErrors("list")))) return { sessions: [], unreadable: [] }
          // A database an older build wrote has no catalog to trust yet (the next write migrates it):
          // each session is loaded, as before.
          if (version < SCHEMA_VERSION) {
            const ids = yield* sql<{ readonly id: SessionId }>`SELECT id FROM sessions`.pipe(Effect.mapError(io("list")))
            return yield* listCatalog(ids.map(({ id }) => ({ id, judged: { _tag: "Load" } as const })), readAll)
          }
          // One row per session; the correlated reads go by the (session_id, seq) key, the
          // last one over the events past `summary_seq` only (none, for a row this build wrote).
          const rows = yield* sql<CatalogRow>`SELECT s.id, s.version, s.created_at, s.cwd, s.title, s.turns, s.first_message,
              (SELECT e.time FROM events e WHERE e.session_id = s.id ORDER BY e.seq DESC LIMIT 1) AS last_time,
              (SELECT e.type FROM events e WHERE e.session_id = s.id AND e.type IN ('turn/start', 'turn/end')
                ORDER BY e.seq DESC LIMIT 1) AS last_turn,
              s.summary_seq IS NULL OR EXISTS (SELECT 1 FROM events e WHERE e.session_id = s.id
                AND e.seq > s.summary_seq AND e.type IN ('turn/start', 'user/message')) AS behind
            FROM sessions s`.pipe(Effect.mapError(io("list")))
          return yield* listCatalog(rows.map((row) => ({ id: row.id as SessionId, judged: judge(row) })), readAll)
        })),
    }
    return yield* makeCore(backend)
  })

export const layerSqlite = (options: SqliteOptions) => Layer.scoped(SessionStore, makeSqlite(options))
