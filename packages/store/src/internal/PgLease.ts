/**
 * The PostgreSQL lease: a session-level advisory lock on the session id, taken
 * on a connection reserved for that session, and every write of the session
 * made on that same connection. Losing the connection loses both the lock and
 * the means to write, so a writer can never write without its lease.
 *
 * Each write is one statement: a compare-and-set of `sessions.last_seq` (the
 * stale-writer check) and the insert of the batch. Zero rows, or a primary-key
 * conflict, is `StaleWriter`. A write that finds the connection gone, or gets
 * no answer in time, is `LeaseLost`: the writer is dead from then on and never
 * writes again; whether that last write committed is settled by the next open,
 * which reads what is stored (never by a blind retry).
 */
import type { Connection } from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import type { PgClient } from "@effect/sql-pg"
import { type Duration, Effect, Exit, Scope } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { type Holder, LeaseLost, SessionLocked, StaleWriter, type StoreError, StoreIOError } from "../StoreError.js"
import { holderIn } from "./PgConnection.js"
import { CHANNEL } from "./PgFollow.js"
import type { Writer } from "./Core.js"

export interface LeaseContext {
  readonly sql: PgClient.PgClient
  /** The database as errors name it. */
  readonly where: string
  /** How long a write may wait for the server before the lease is given up. */
  readonly writeTimeout: Duration.Duration
}

/** The process holding the session's lock, named by its connection's `application_name`. */
export const holderOf = (sql: PgClient.PgClient, id: SessionId): Effect.Effect<Holder | undefined, SqlError> =>
  Effect.map(
    sql<{ readonly name: string | null }>`WITH k AS (SELECT hashtextextended(${id}, 0) AS key)
      SELECT a.application_name AS name FROM k, pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid = ((k.key >> 32) & 4294967295)::oid AND l.objid = (k.key & 4294967295)::oid`,
    ([row]) => (row === undefined ? undefined : holderIn(row.name ?? "") ?? { pid: 0, host: "another client" }),
  )

const INSERT_EVENTS = `INSERT INTO events (session_id, seq, type, "time", data)
  SELECT w.id, e.seq, e.type, e.time, e.data::json
  FROM w, n, unnest($1::int4[], $2::text[], $3::text[], $4::text[]) AS e(seq, type, time, data)`

/**
 * Followers are told of every write in the transaction that makes it (a
 * notification is delivered at commit, and never for a write rolled back).
 * Materialised so it runs once, whatever the join order.
 */
const NOTIFY = `n AS MATERIALIZED (SELECT pg_notify('${CHANNEL}', w.id) FROM w)`

const APPEND = `WITH w AS (
    UPDATE sessions SET last_seq = $7, updated_at = $8, turns = turns + $9, first_message = coalesce(first_message, $10)
    WHERE id = $5 AND last_seq = $6 RETURNING id),
  ${NOTIFY}
  ${INSERT_EVENTS}`

/** The header alone: \`create\` makes the session durable before any event is written. */
const CREATE_EMPTY = `INSERT INTO sessions (id, version, created_at, cwd, title, updated_at, turns, first_message, last_seq)
  VALUES ($1, $2, $3, $4::json, $5::json, $3, 0, NULL, 0) ON CONFLICT (id) DO NOTHING`

const CREATE = `WITH w AS (
    INSERT INTO sessions (id, version, created_at, cwd, title, updated_at, turns, first_message, last_seq)
    VALUES ($5, $6, $7, $8::json, $9::json, $10, $11, $12, $13) ON CONFLICT (id) DO NOTHING RETURNING id),
  ${NOTIFY}
  ${INSERT_EVENTS}`

/** What `list` keeps on the session row: turns started, and the first user message's title. */
export interface RowFacts {
  readonly turns: number
  readonly firstMessage: string | null
}

interface PgFailure {
  readonly code?: unknown
  readonly severity?: unknown
  readonly message?: unknown
}

const failureOf = (error: SqlError): PgFailure =>
  typeof error.cause === "object" && error.cause !== null ? error.cause as PgFailure : {}

const describe = (error: SqlError): string => {
  const message = failureOf(error).message
  return typeof message === "string" ? message : error.message
}

/**
 * The server answered with an error and the session goes on (the statement
 * was rolled back, the lock is still held), as opposed to the connection
 * ending: a FATAL error, a connection-class SQLSTATE (08…, 57P…), or no answer.
 */
const connectionAlive = (error: SqlError): boolean => {
  const { code, severity } = failureOf(error)
  if (typeof code !== "string" || typeof severity !== "string") return false
  return severity !== "FATAL" && severity !== "PANIC" && !code.startsWith("08") && !code.startsWith("57P")
}

const columns = (events: ReadonlyArray<SessionLog.SessionEvent>) => [
  events.map((e) => e.seq),
  events.map((e) => e.type),
  events.map((e) => e.time),
  events.map((e) => JSON.stringify(e.data)),
]

/** Takes the lease of `id` on a connection of its own, or fails with `SessionLocked` naming the holder. */
export const acquireLease = (
  context: LeaseContext,
  id: SessionId,
  facts: (events: ReadonlyArray<SessionLog.SessionEvent>) => RowFacts,
): Effect.Effect<Writer, StoreError> =>
  Effect.gen(function*() {
    const { sql, where, writeTimeout } = context
    const io = (operation: string) => (error: SqlError) => new StoreIOError({ path: where, operation, cause: error.cause ?? error })
    const scope = yield* Scope.make()
    const closeScope = Scope.close(scope, Exit.void)
    const taken = yield* Effect.gen(function*() {
      const connection: Connection = yield* Scope.extend(sql.reserve, scope)
      const [row] = yield* connection.execute(
        "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken, pg_backend_pid() AS backend",
        [id],
        undefined,
      )
      return { connection, taken: row?.taken === true, backend: Number(row?.backend) }
    }).pipe(
      Effect.mapError(io("take the lease in")),
      Effect.timeoutFail({
        duration: writeTimeout,
        onTimeout: () => new StoreIOError({ path: where, operation: "take the lease in", cause: new Error("no answer from the server") }),
      }),
      Effect.onError(() => closeScope),
    )
    if (!taken.taken) {
      yield* closeScope
      const holder = yield* holderOf(sql, id).pipe(Effect.mapError(io("find the lease holder in")))
      return yield* new SessionLocked({ sessionId: id, holder: holder ?? { pid: 0, host: "unknown (the holder just let go)" } })
    }
    const { connection, backend } = taken

    let lost: LeaseLost | undefined
    const lose = (reason: string): Effect.Effect<void, StoreError> =>
      Effect.suspend(() => {
        lost ??= new LeaseLost({ sessionId: id, reason })
        const error = lost
        // The connection is not given back for reuse; the server ends our backend so the lock is surely gone.
        return sql`SELECT pg_terminate_backend(${backend})`.pipe(
          Effect.timeout(writeTimeout),
          Effect.ignore,
          Effect.zipRight(closeScope),
          Effect.zipRight(Effect.fail(error)),
        )
      })

    const stale = (gotSeq: number) =>
      // The next seq past both the session's last_seq and its stored rows (a key conflict means rows it does not count).
      connection.execute(
        `SELECT greatest(s.last_seq, (SELECT coalesce(max(seq), 0) FROM events WHERE session_id = $1)) AS last
         FROM sessions s WHERE s.id = $1`,
        [id],
        undefined,
      ).pipe(
        Effect.map(([row]) => new StaleWriter({ sessionId: id, expectedSeq: Number(row?.last ?? 0) + 1, gotSeq })),
        Effect.catchAll(() => Effect.succeed(new StaleWriter({ sessionId: id, expectedSeq: 0, gotSeq }))),
        Effect.flatMap((error): Effect.Effect<void, StoreError> => Effect.fail(error)),
      )

    /** One write statement, expected to touch `rows` rows (fewer: the session exists, or another writer moved it on). */
    const run = (
      statement: string,
      params: ReadonlyArray<unknown>,
      rows: number,
      first: boolean,
      firstSeq: number,
    ): Effect.Effect<void, StoreError> =>
      connection.executeRaw(statement, params).pipe(
        Effect.timeoutFail({ duration: writeTimeout, onTimeout: () => "timeout" as const }),
        Effect.matchEffect({
          onSuccess: (result): Effect.Effect<void, StoreError> => {
            const inserted = (result as { readonly rowCount?: number | null }).rowCount ?? 0
            if (inserted === rows) return Effect.void
            return first
              ? Effect.fail(new StoreIOError({ path: id, operation: "create", cause: new Error(`session ${id} already exists`) }))
              : stale(firstSeq)
          },
          onFailure: (error): Effect.Effect<void, StoreError> => {
            if (error === "timeout") return lose("no answer from the database; the outcome of the last write is unknown")
            if (failureOf(error).code === "23505") return stale(firstSeq)
            if (connectionAlive(error)) return Effect.fail(io(first ? "create" : "append to")(error))
            return lose(`its database connection ended: ${describe(error)}`)
          },
        }),
      )

    const write = (
      header: SessionLog.SessionHeader,
      events: ReadonlyArray<SessionLog.SessionEvent>,
      first: boolean,
    ): Effect.Effect<void, StoreError> =>
      Effect.suspend(() => {
        if (lost !== undefined) return Effect.fail(lost)
        const headerRow = [id, header.version, header.createdAt, JSON.stringify(header.cwd), header.title === undefined ? null : JSON.stringify(header.title)]
        if (events.length === 0) {
          if (!first) return Effect.void
          return run(CREATE_EMPTY, headerRow, 1, true, 0)
        }
        const firstSeq = events[0]!.seq
        const last = events[events.length - 1]!
        const { turns, firstMessage } = facts(events)
        const params = first
          ? [...columns(events), ...headerRow, last.time, turns, firstMessage, last.seq]
          : [...columns(events), id, firstSeq - 1, last.seq, last.time, turns, firstMessage]
        return run(first ? CREATE : APPEND, params, events.length, first, firstSeq)
      })

    const release = Effect.suspend(() =>
      lost !== undefined
        ? Effect.void
        : connection.execute("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [id], undefined).pipe(
          Effect.timeout(writeTimeout),
          Effect.ignore,
          Effect.ensuring(closeScope),
        )
    )
    return { write, release } satisfies Writer
  })
