/**
 * The PostgreSQL layer, for sessions that more than one machine writes in
 * turn. A `sessions` table (the header, what `list` shows, and `last_seq`, the
 * seq of the last stored event, which every write compares and sets) and an
 * `events (session_id, seq, type, time, data json)` table keyed by
 * `(session_id, seq)`; the schema is versioned and created by turnlog (see
 * `internal/PgSchema`). A lease is a row of the schema's `leases` table, live
 * while the store's one lease connection lives (see `internal/PgLease` and
 * `internal/PgLeaseConnection`): a held session costs no connection of its
 * own. Every write is one statement, so a write either committed whole or
 * left nothing: there is no torn tail, and every other rule is the shared
 * store logic's.
 *
 * `read` decodes every event row; `open` reads what continuing needs (see
 * `internal/PgLoad`): the raw chunk rows of completed steps are checked for
 * what the database vouches for (seq in order, json data holding an object)
 * without their data being sent, the rest decoded in full.
 */
import { Duration, Effect, Either, Layer } from "effect"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import { type Backend, makeCore } from "./internal/Core.js"
import { connectionOf, DEFAULT_CONNECT_TIMEOUT, makeClient } from "./internal/PgConnection.js"
import { acquireLease, holderOf, holdersOf, statements } from "./internal/PgLease.js"
import * as PgLeaseConnection from "./internal/PgLeaseConnection.js"
import { eventOf } from "./internal/EventRows.js"
import { loadEvents, page } from "./internal/PgLoad.js"
import { channelOf, listen } from "./internal/PgFollow.js"
import { ensureSchema } from "./internal/PgSchema.js"
import type { Tail } from "./internal/Streaming.js"
import { fromCatalog, type Judged, listCatalog } from "./internal/Catalog.js"
import { SessionStore } from "./SessionStore.js"
import {
  SessionCorrupt,
  SessionNotFound,
  type StoreError,
  StoreIOError,
  UnsupportedVersion,
} from "./StoreError.js"
import { firstTitle, turnsIn } from "./Summary.js"
import type { PostgresOptions } from "./StoreLayer.js"

export { SCHEMA_VERSION } from "./internal/PgSchema.js"

// Declared beside the selector, which must not load this module (or its driver's types) to name it.
export type { PostgresOptions } from "./StoreLayer.js"

/** Rows per page of a streaming read. */
const STREAM_ROWS = 500

interface SessionRow {
  readonly id: string
  readonly version: number
  readonly created_at: string
  readonly cwd: string
  readonly title: string | null
  readonly last_seq: number
}

interface CatalogRow extends SessionRow {
  readonly turns: number
  readonly updated_at: string
  readonly first_message: string | null
  /** The type of the last `turn/start` or `turn/end`: the last turn is open when it is a start. */
  readonly last_turn: string | null
}

const facts = (events: ReadonlyArray<SessionLog.SessionEvent>) => ({
  turns: turnsIn(events),
  // A display title; text cannot hold a NUL.
  firstMessage: firstTitle(events)?.replaceAll("\u0000", "\uFFFD") ?? null,
})

export const makePostgres = (options: PostgresOptions) =>
  Effect.gen(function*() {
    const connection = yield* connectionOf(options.url, options.schema)
    const where = connection.display
    const sql = yield* makeClient(connection, {
      connectTimeout: Duration.decode(options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT),
      // Reads and writes of every session share these; the leases keep one more of their own.
      maxConnections: 20,
      ...(options.program !== undefined ? { program: options.program } : {}),
    })
    yield* ensureSchema(sql, where, connection.schema)
    const [named] = yield* sql<{ readonly schema: string | null }>`SELECT current_schema() AS schema`.pipe(
      Effect.mapError((error) => new StoreIOError({ path: where, operation: "prepare the schema in", cause: error.cause ?? error })),
    )
    // Notifications of this schema only: a session of another schema with the same id is another session.
    const channel = channelOf(named?.schema ?? connection.schema ?? "public")
    const connectTimeout = Duration.decode(options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT)
    const writeTimeout = Duration.decode(options.writeTimeout ?? Duration.seconds(30))
    const leases = yield* PgLeaseConnection.make(connection, {
      connectTimeout,
      leaseTimeout: writeTimeout,
      ...(options.program !== undefined ? { program: options.program } : {}),
    })
    const leaseStatements = statements(channel)
    const io = (operation: string) => (error: { readonly cause?: unknown }) => new StoreIOError({ path: where, operation, cause: error.cause ?? error })

    const jsonString = (text: string): string | undefined => {
      const value = Either.getOrUndefined(Either.try(() => JSON.parse(text) as unknown))
      return typeof value === "string" ? value : undefined
    }

    const headerOf = (row: SessionRow): Either.Either<SessionLog.SessionHeader, StoreError> => {
      if (row.version > SessionLog.LOG_VERSION) {
        return Either.left(new UnsupportedVersion({ file: where, found: row.version, supported: SessionLog.LOG_VERSION }))
      }
      const cwd = jsonString(row.cwd)
      const title = row.title === null ? undefined : jsonString(row.title)
      if (cwd === undefined || (row.title !== null && title === undefined)) {
        return Either.left(
          new SessionCorrupt({ file: where, sessionId: row.id, line: 1, detail: "the session's cwd or title is not a JSON string" }),
        )
      }
      return Either.right({
        type: "session",
        version: row.version,
        id: row.id as SessionId,
        createdAt: row.created_at,
        cwd,
        ...(title !== undefined ? { title } : {}),
      })
    }

    const load = (id: SessionId, repair: boolean) =>
      Effect.gen(function*() {
        // The header (and last_seq) is read first: a writer appending meanwhile
        // can only add rows after what it records.
        const [row] = yield* sql<SessionRow>`SELECT id, version, created_at, cwd::text AS cwd, title::text AS title, last_seq
          FROM sessions WHERE id = ${id}`
        if (row === undefined) return yield* new SessionNotFound({ sessionId: id })
        const header = yield* headerOf(row)
        return { header, events: yield* loadEvents(sql, where, id, row.last_seq, repair) }
      }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(io("read")(e))))

    // A session list judges a session by the pass `read` makes.
    const readAll = (id: SessionId) => load(id, false)

    const header = (id: SessionId): Effect.Effect<SessionLog.SessionHeader, StoreError> =>
      Effect.gen(function*() {
        const [row] = yield* sql<SessionRow>`SELECT id, version, created_at, cwd::text AS cwd, title::text AS title, last_seq
          FROM sessions WHERE id = ${id}`
        if (row === undefined) return yield* new SessionNotFound({ sessionId: id })
        return yield* headerOf(row)
      }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(io("read")(e))))

    // Pages of seq ranges after the last seq read (see `page`), checked row by
    // row as `load` checks them; the first has no lower bound, so a row with
    // seq 0 or below is met (and refused), not skipped.
    const tail = (id: SessionId, fromSeq: number): Effect.Effect<Tail, StoreError> =>
      Effect.map(header(id), () => {
        let last = fromSeq <= 1 ? undefined : fromSeq - 1
        return {
          next: Effect.gen(function*() {
            const rows = yield* page(sql, id, last, (last ?? 0) + STREAM_ROWS)
            const events: Array<SessionLog.SessionEvent> = []
            for (const r of rows) {
              events.push(yield* eventOf(where, id, r, (last ?? 0) + 1))
              last = r.seq
            }
            return events
          }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(io("read")(e)))),
          pending: () => undefined,
        }
      })

    const judge = (row: CatalogRow): Judged => {
      const header = headerOf(row)
      if (Either.isLeft(header)) return { _tag: "Unreadable", error: header.left }
      const counted = {
        updatedAt: row.last_seq > 0 ? row.updated_at : null,
        turns: row.turns,
        firstMessage: row.first_message,
        openTurn: row.last_turn === "turn/start",
      }
      return { _tag: "Listed", summary: fromCatalog(header.right, counted) }
    }

    const backend: Backend = {
      streaming: {
        header,
        tail,
        changes: (id) => listen(connection, channel, id, connectTimeout),
        // Notifications wake a follower at once; polling only finds what a lost one missed.
        pollInterval: Duration.seconds(2),
      },
      acquire: (id) => acquireLease({ sql, where, writeTimeout, leases, statements: leaseStatements }, id, facts),
      load,
      holderOf: (id) => holderOf(sql, id).pipe(Effect.mapError(io("find the lease holder in"))),
      holders: () => holdersOf(sql).pipe(Effect.mapError(io("find the lease holders in"))),
      // The catalog: each write sets the row's counters and last_seq in the statement that stores
      // its events, so a row is never behind them; `read` still decodes every event, `open` what continuing needs.
      list: () =>
        Effect.gen(function*() {
          // Whether the last turn is open: a read back by the (session_id, seq) key to the last turn event.
          const rows = yield* sql<CatalogRow>`SELECT s.id, s.version, s.created_at, s.cwd::text AS cwd, s.title::text AS title,
              s.last_seq, s.updated_at, s.turns, s.first_message,
              (SELECT e.type FROM events e WHERE e.session_id = s.id AND e.type IN ('turn/start', 'turn/end')
                ORDER BY e.seq DESC LIMIT 1) AS last_turn
            FROM sessions s`.pipe(Effect.mapError(io("list")))
          return yield* listCatalog(rows.map((row) => ({ id: row.id as SessionId, judged: judge(row) })), readAll)
        }),
    }
    return yield* makeCore(backend)
  }).pipe(
    // Whatever the driver throws past its typed errors is still the database failing.
    Effect.catchAllDefect((cause) => new StoreIOError({ path: "the database", operation: "open", cause })),
  )

export const layerPostgres = (options: PostgresOptions) => Layer.scoped(SessionStore, makePostgres(options))
