/**
 * The PostgreSQL layer, for sessions that more than one machine writes in
 * turn. A `sessions` table (the header, what `list` shows, and `last_seq`, the
 * seq of the last stored event, which every write compares and sets) and an
 * `events (session_id, seq, type, time, data json)` table keyed by
 * `(session_id, seq)`; the schema is versioned and created by turnlog (see
 * `internal/PgSchema`). The lease is a session-level advisory lock held on the
 * writer's own connection (see `internal/PgLease`). Every write is one
 * statement, so a write either committed whole or left nothing: there is no
 * torn tail, and every other rule is the shared store logic's.
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, Either, Fiber, Layer } from "effect"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import { type Backend, makeCore } from "./internal/Core.js"
import { classify } from "./internal/EventLine.js"
import { connectionOf, DEFAULT_CONNECT_TIMEOUT, makeClient } from "./internal/PgConnection.js"
import { acquireLease, holderOf } from "./internal/PgLease.js"
import { listen } from "./internal/PgFollow.js"
import { ensureSchema } from "./internal/PgSchema.js"
import type { Tail } from "./internal/Streaming.js"
import { fromCatalog, type Judged, listCatalog } from "./internal/Catalog.js"
import { SessionStore } from "./SessionStore.js"
import {
  SessionCorrupt,
  SessionNotFound,
  type StoreError,
  StoreIOError,
  UnknownEvent,
  UnsupportedVersion,
} from "./StoreError.js"
import { firstTitle, turnsIn } from "./Summary.js"
import type { PostgresOptions } from "./StoreLayer.js"

export { SCHEMA_VERSION } from "./internal/PgSchema.js"

// Declared beside the selector, which must not load this module (or its driver's types) to name it.
export type { PostgresOptions } from "./StoreLayer.js"

/** Seqs per page when loading a session. */
const PAGE_ROWS = 5000

/** Rows per page of a streaming read. */
const STREAM_ROWS = 500

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
      // Each held session keeps one connection; reads share the rest.
      maxConnections: 20,
      ...(options.program !== undefined ? { program: options.program } : {}),
    })
    yield* ensureSchema(sql, where, connection.schema)
    const writeTimeout = Duration.decode(options.writeTimeout ?? Duration.seconds(30))
    const io = (operation: string) => (error: { readonly cause?: unknown }) =>
      new StoreIOError({ path: where, operation, cause: error.cause ?? error })

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

    const corrupt = (id: SessionId, line: number, detail: string) =>
      Either.left(new SessionCorrupt({ file: where, sessionId: id, line, detail }))

    const decodeRow = (id: SessionId, row: EventRow, expected: number): Either.Either<SessionLog.SessionEvent, StoreError> => {
      if (row.seq !== expected) return corrupt(id, row.seq, `expected event seq ${expected}, found ${row.seq}`)
      if (!SessionLog.isEventType(row.type)) {
        return Either.left(new UnknownEvent({ file: where, sessionId: id, line: row.seq, type: row.type }))
      }
      let data: unknown
      try {
        data = JSON.parse(row.data)
      } catch {
        return corrupt(id, row.seq, "the event data is not JSON")
      }
      const result = classify({ seq: row.seq, time: row.time, type: row.type, data })
      if (result._tag === "Event") return Either.right(result.event)
      return corrupt(id, row.seq, result._tag === "Invalid" ? result.detail : "not an event")
    }

    /**
     * The rows with `after < seq <= upTo` (a missing bound: none). Pages are
     * ranges of seq, not `LIMIT`s: a planner with stale statistics (fresh
     * tables, a session appended since the last ANALYZE) picks a bitmap scan
     * plus a sort of every row after `after`, which made each LIMIT page read
     * the rest of the session; a range reads its own rows whatever the plan.
     */
    const page = (id: SessionId, after: number | undefined, upTo: number | undefined) =>
      after === undefined
        ? upTo === undefined
          ? sql<EventRow>`SELECT seq, type, "time", data::text AS data FROM events
            WHERE session_id = ${id} ORDER BY seq`
          : sql<EventRow>`SELECT seq, type, "time", data::text AS data FROM events
            WHERE session_id = ${id} AND seq <= ${upTo} ORDER BY seq`
        : upTo === undefined
        ? sql<EventRow>`SELECT seq, type, "time", data::text AS data FROM events
            WHERE session_id = ${id} AND seq > ${after} ORDER BY seq`
        : sql<EventRow>`SELECT seq, type, "time", data::text AS data FROM events
            WHERE session_id = ${id} AND seq > ${after} AND seq <= ${upTo} ORDER BY seq`

    const load = (id: SessionId) =>
      Effect.gen(function*() {
        // Pages of PAGE_ROWS seqs: the first has no lower bound, so a row with seq 0 or
        // below is met (and refused), and the last no upper one, so a row past the
        // recorded end is met too; nothing stored is skipped. Each page is asked for
        // before the one before it is decoded, so the server's work and the decoding
        // overlap; the page in flight is interrupted if anything is refused. The
        // header (and last_seq) is read first: a writer appending meanwhile can only
        // add rows after what it records.
        const [row] = yield* sql<SessionRow>`SELECT id, version, created_at, cwd::text AS cwd, title::text AS title, last_seq
          FROM sessions WHERE id = ${id}`
        if (row === undefined) return yield* new SessionNotFound({ sessionId: id })
        const header = yield* headerOf(row)
        let upTo: number | undefined = PAGE_ROWS < row.last_seq ? PAGE_ROWS : undefined
        let next: Fiber.RuntimeFiber<ReadonlyArray<EventRow>, SqlError> | undefined = yield* Effect.fork(
          page(id, undefined, upTo),
        )
        const events: Array<SessionLog.SessionEvent> = []
        while (next !== undefined) {
          const rows: ReadonlyArray<EventRow> = yield* Fiber.join(next)
          if (upTo === undefined) {
            next = undefined
          } else {
            const after: number = upTo
            upTo = after + PAGE_ROWS < row.last_seq ? after + PAGE_ROWS : undefined
            next = yield* Effect.fork(page(id, after, upTo))
          }
          // A plain loop: a yield per row would cost more than decoding it.
          for (const r of rows) {
            const event = decodeRow(id, r, events.length + 1)
            if (Either.isLeft(event)) return yield* event.left
            events.push(event.right)
          }
        }
        // Every write sets last_seq with its events in one statement: a difference is damage, not a race.
        if (events.length !== row.last_seq) {
          return yield* new SessionCorrupt({
            file: where,
            sessionId: id,
            line: Math.min(events.length, row.last_seq) + 1,
            detail: `the session records ${row.last_seq} events, ${events.length} are stored`,
          })
        }
        return { header, events }
      }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(io("read")(e))))

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
            const rows = yield* page(id, last, (last ?? 0) + STREAM_ROWS)
            const events: Array<SessionLog.SessionEvent> = []
            for (const r of rows) {
              events.push(yield* decodeRow(id, r, (last ?? 0) + 1))
              last = r.seq
            }
            return events
          }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(io("read")(e)))),
          pending: () => undefined,
        }
      })

    const connectTimeout = Duration.decode(options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT)

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
        changes: (id) => listen(connection, id, connectTimeout),
        // Notifications wake a follower at once; polling only finds what a lost one missed.
        pollInterval: Duration.seconds(2),
      },
      acquire: (id) => acquireLease({ sql, where, writeTimeout }, id, facts),
      load: (id) => load(id),
      holderOf: (id) => holderOf(sql, id).pipe(Effect.mapError(io("find the lease holder in"))),
      // The catalog: each write sets the row's counters and last_seq in the statement that stores
      // its events, so a row is never behind them; `read` and `open` still decode every event.
      list: () =>
        Effect.gen(function*() {
          // Whether the last turn is open: a read back by the (session_id, seq) key to the last turn event.
          const rows = yield* sql<CatalogRow>`SELECT s.id, s.version, s.created_at, s.cwd::text AS cwd, s.title::text AS title,
              s.last_seq, s.updated_at, s.turns, s.first_message,
              (SELECT e.type FROM events e WHERE e.session_id = s.id AND e.type IN ('turn/start', 'turn/end')
                ORDER BY e.seq DESC LIMIT 1) AS last_turn
            FROM sessions s`.pipe(Effect.mapError(io("list")))
          return yield* listCatalog(rows.map((row) => ({ id: row.id as SessionId, judged: judge(row) })), load)
        }),
    }
    return yield* makeCore(backend)
  }).pipe(
    // Whatever the driver throws past its typed errors is still the database failing.
    Effect.catchAllDefect((cause) => new StoreIOError({ path: "the database", operation: "open", cause })),
  )

export const layerPostgres = (options: PostgresOptions) => Layer.scoped(SessionStore, makePostgres(options))
