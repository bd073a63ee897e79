/**
 * The PostgreSQL lease: a row of the schema's `leases` table naming the
 * store's lease connection (see `PgLeaseConnection`) with a generation that
 * every taking raises. A lease is live while that connection still holds its
 * advisory lock token, which the server frees the moment the connection ends;
 * a lease that is not live can be taken by anyone allowed to write the table,
 * and only by them: a role that can merely connect can neither take a lease
 * nor keep one from its writer. Being a row of the schema, a lease belongs to
 * that schema: the same session id in another schema is another session.
 *
 * Each write is one statement on any pooled connection: it locks the lease
 * row for share and goes on only if the row still has the writer's generation
 * and a live holder (the fence), then compare-and-sets `sessions.last_seq`
 * (the stale-writer check) and inserts the batch. A takeover waits for a write
 * in flight and a write for a takeover in flight, so no write commits under a
 * lease another process holds. A fence that fails, a connection that ends or
 * a write that gets no answer in time is `LeaseLost`: the writer is dead from
 * then on and never writes again; whether that last write committed is
 * settled by the next open, which reads what is stored (never by a blind
 * retry). Zero rows with the fence holding, or a primary-key conflict, is
 * `StaleWriter`.
 *
 * Followers are told of a write after it committed, by a `pg_notify` of its
 * own (one in flight per session; writes meanwhile are told by the next one),
 * not in the write's transaction: PostgreSQL serialises the commits of
 * transactions that notify, fsync included, so eight writers notifying in
 * their writes committed one at a time. A notification lost with a process
 * that dies between the two is found by the followers' poll.
 */
import type { SqlError } from "@effect/sql/SqlError"
import type { PgClient } from "@effect/sql-pg"
import { Duration, Effect } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { type Holder, LeaseLost, SessionLocked, StaleWriter, type StoreError, StoreIOError } from "../StoreError.js"
import { holderIn } from "./PgConnection.js"
import type { LeaseConnection } from "./PgLeaseConnection.js"
import type { Writer } from "./Core.js"

export interface LeaseContext {
  readonly sql: PgClient.PgClient
  /** The database as errors name it. */
  readonly where: string
  /**
   * How long a write may wait for the server before the lease is given up; a
   * large write gets more (see `timeoutFor`).
   */
  readonly writeTimeout: Duration.Duration
  /** The connection whose life the leases of this store are. */
  readonly leases: LeaseConnection
  /** The statements of this store's schema (see `statements`). */
  readonly statements: Statements
}

/** Whether the lease row `le` names a connection that still holds its token (a released lease names pid 0: none). */
const LIVE = `EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.pid = le.holder_pid AND l.classid = ((le.holder_token >> 32) & 4294967295)::oid
  AND l.objid = (le.holder_token & 4294967295)::oid)`

const named = (name: string | null): Holder => holderIn(name ?? "") ?? { pid: 0, host: "another client" }

/** The process holding the session's lease, named by its lease connection's `application_name`. */
export const holderOf = (sql: PgClient.PgClient, id: SessionId): Effect.Effect<Holder | undefined, SqlError> =>
  Effect.map(
    sql.unsafe<{ readonly name: string | null }>(
      `SELECT a.application_name AS name FROM leases le LEFT JOIN pg_stat_activity a ON a.pid = le.holder_pid
       WHERE le.session_id = $1 AND ${LIVE}`,
      [id],
    ),
    ([row]) => (row === undefined ? undefined : named(row.name)),
  )

/** Every session of the schema whose lease is live, and its holder: one query, whatever their number. */
export const holdersOf = (sql: PgClient.PgClient): Effect.Effect<ReadonlyMap<SessionId, Holder>, SqlError> =>
  Effect.map(
    sql.unsafe<{ readonly id: string; readonly name: string | null }>(
      `SELECT le.session_id AS id, a.application_name AS name FROM leases le LEFT JOIN pg_stat_activity a ON a.pid = le.holder_pid
       WHERE le.holder_pid <> 0 AND ${LIVE}`,
    ),
    (rows) => new Map(rows.map((row) => [row.id as SessionId, named(row.name)])),
  )

const INSERT_EVENTS = `INSERT INTO events (session_id, seq, type, "time", data)
  SELECT w.id, e.seq, e.type, e.time, e.data::json
  FROM w, unnest($1::int4[], $2::text[], $3::text[], $4::text[]) AS e(seq, type, time, data)`

/** The lease row of session `id` if it still has generation `generation` and a live holder, locked for share until commit. */
const fence = (id: string, generation: string) =>
  `f AS MATERIALIZED (SELECT 1 FROM leases le WHERE le.session_id = ${id} AND le.generation = ${generation}::int8 AND ${LIVE}
    FOR SHARE OF le)`

/** The statements of a store whose followers listen on `channel`. */
export const statements = (channel: string) => ({
  append: `WITH ${fence("$5", "$11")},
    w AS (
      UPDATE sessions SET last_seq = $7, updated_at = $8, turns = turns + $9, first_message = coalesce(first_message, $10)
      WHERE id = $5 AND last_seq = $6 AND EXISTS (SELECT 1 FROM f) RETURNING id)
    ${INSERT_EVENTS}`,
  /** The header alone: `create` makes the session durable before any event is written. */
  createEmpty: `WITH ${fence("$1", "$6")}
    INSERT INTO sessions (id, version, created_at, cwd, title, updated_at, turns, first_message, last_seq)
    SELECT $1::text, $2::int4, $3::text, $4::json, $5::json, $3::text, 0, NULL, 0 WHERE EXISTS (SELECT 1 FROM f)
    ON CONFLICT (id) DO NOTHING`,
  create: `WITH ${fence("$5", "$14")},
    w AS (
      INSERT INTO sessions (id, version, created_at, cwd, title, updated_at, turns, first_message, last_seq)
      SELECT $5::text, $6::int4, $7::text, $8::json, $9::json, $10::text, $11::int4, $12::text, $13::int4
      WHERE EXISTS (SELECT 1 FROM f)
      ON CONFLICT (id) DO NOTHING RETURNING id)
    ${INSERT_EVENTS}`,
  /** Wakes the followers of session `$1`, after a write committed. */
  notify: `SELECT pg_notify('${channel}', $1)`,
})
export type Statements = ReturnType<typeof statements>

/** Takes a lease that is not live (or makes the first one), raising its generation: the generation, or none if it is live. */
const TAKE = `INSERT INTO leases AS le (session_id, generation, holder_pid, holder_token) VALUES ($1, 1, $2::int4, $3::int8)
  ON CONFLICT (session_id) DO UPDATE SET generation = le.generation + 1, holder_pid = excluded.holder_pid,
    holder_token = excluded.holder_token
  WHERE NOT ${LIVE}
  RETURNING le.generation::text AS generation`

/** The session's events and row, in one statement under the fence: its id when it was stored. */
const REMOVE = `WITH ${fence("$1", "$2")},
  e AS (DELETE FROM events WHERE session_id = $1 AND EXISTS (SELECT 1 FROM f))
  DELETE FROM sessions WHERE id = $1 AND EXISTS (SELECT 1 FROM f) RETURNING id`

/** Gives the lease up, if it is still this generation's. */
const GIVE_UP = `UPDATE leases SET holder_pid = 0 WHERE session_id = $1 AND generation = $2::int8`

/** The lease row as a fence that failed finds it. */
const LEASE_NOW = `SELECT le.generation::text AS generation, ${LIVE} AS live FROM leases le WHERE le.session_id = $1`

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

const failureOf = (error: SqlError): PgFailure => typeof error.cause === "object" && error.cause !== null ? error.cause as PgFailure : {}

const describe = (error: SqlError): string => {
  const message = failureOf(error).message
  return typeof message === "string" ? message : error.message
}

/**
 * The server answered with an error and the session goes on (the statement
 * was rolled back, the lease is untouched), as opposed to the connection the
 * write went on ending, which leaves its outcome unknown: a FATAL error, a
 * connection-class SQLSTATE (08…, 57P…), or no answer.
 */
const connectionAlive = (error: SqlError): boolean => {
  const { code, severity } = failureOf(error)
  if (typeof code !== "string" || typeof severity !== "string") return false
  return severity !== "FATAL" && severity !== "PANIC" && !code.startsWith("08") && !code.startsWith("57P")
}

const columns = (events: ReadonlyArray<SessionLog.SessionEvent>) => {
  const data = events.map((e) => JSON.stringify(e.data))
  let chars = 0
  for (const d of data) chars += d.length
  return { params: [events.map((e) => e.seq), events.map((e) => e.type), events.map((e) => e.time), data], chars }
}

/** The slowest rate a live server is assumed to take a write's data at: 1 MiB per second. */
const SLOWEST_CHARS_PER_MS = 1_048_576 / 1_000

/**
 * The wait for a write of `chars` characters of event data: the configured
 * timeout plus the time the data takes at the slowest rate. A 150 MB import
 * is not a dead server after 30 s on a busy machine; the lease connection's
 * pings still find a dead one within the configured timeout.
 */
export const timeoutFor = (writeTimeout: Duration.Duration, chars: number): Duration.Duration =>
  Duration.sum(writeTimeout, Duration.millis(Math.ceil(chars / SLOWEST_CHARS_PER_MS)))

/** Takes the lease of `id` for this store, or fails with `SessionLocked` naming the holder. */
export const acquireLease = (
  context: LeaseContext,
  id: SessionId,
  facts: (events: ReadonlyArray<SessionLog.SessionEvent>) => RowFacts,
): Effect.Effect<Writer, StoreError> =>
  Effect.gen(function*() {
    const { sql, statements, where, writeTimeout } = context
    const io = (operation: string) => (error: SqlError) => new StoreIOError({ path: where, operation, cause: error.cause ?? error })
    const noAnswer = (operation: string) => () => new StoreIOError({ path: where, operation, cause: new Error("no answer from the server") })
    const holder = yield* context.leases.current
    const taken = yield* sql.unsafe<{ readonly generation: string }>(TAKE, [id, holder.pid, holder.token]).pipe(
      Effect.mapError(io("take the lease in")),
      Effect.disconnect,
      Effect.timeoutFail({ duration: writeTimeout, onTimeout: noAnswer("take the lease in") }),
    )
    const generation = taken[0]?.generation
    if (generation === undefined) {
      const named = yield* holderOf(sql, id).pipe(Effect.mapError(io("find the lease holder in")))
      return yield* new SessionLocked({ sessionId: id, holder: named ?? { pid: 0, host: "unknown (the holder just let go)" } })
    }

    const giveUp = sql.unsafe(GIVE_UP, [id, generation]).pipe(Effect.timeout(writeTimeout), Effect.ignore)
    let lost: LeaseLost | undefined
    const lose = (reason: string): Effect.Effect<void, StoreError> =>
      Effect.suspend(() => {
        const first = lost === undefined
        lost ??= new LeaseLost({ sessionId: id, reason })
        // Given up in the background: a write of this generation that is still in flight cannot commit after it.
        return Effect.zipRight(first ? Effect.forkDaemon(giveUp) : Effect.void, Effect.fail(lost))
      })
    const ended = (): string | undefined => {
      const why = holder.ended()
      return why === undefined ? undefined : `its database connection ended: ${why}`
    }

    /** After a write that changed nothing: a lease no longer this writer's, else the reason is the seq. */
    const fenceOrStale = (otherwise: Effect.Effect<void, StoreError>): Effect.Effect<void, StoreError> =>
      Effect.suspend(() => {
        const why = ended()
        if (why !== undefined) return lose(why)
        return sql.unsafe<{ readonly generation: string; readonly live: boolean }>(LEASE_NOW, [id]).pipe(
          Effect.mapError(io("append to")),
          Effect.flatMap(([row]) =>
            row === undefined || row.generation !== generation
              ? lose("another process took the session over")
              : !row.live
              ? lose("its database connection ended: the server no longer holds its lease")
              : otherwise
          ),
        )
      })

    const stale = (gotSeq: number) =>
      // The next seq past both the session's last_seq and its stored rows (a key conflict means rows it does not count).
      sql.unsafe<{ readonly last: number | string | null }>(
        `SELECT greatest(s.last_seq, (SELECT coalesce(max(seq), 0) FROM events WHERE session_id = $1)) AS last
         FROM sessions s WHERE s.id = $1`,
        [id],
      ).pipe(
        Effect.map(([row]) => new StaleWriter({ sessionId: id, expectedSeq: Number(row?.last ?? 0) + 1, gotSeq })),
        Effect.catchAll(() => Effect.succeed(new StaleWriter({ sessionId: id, expectedSeq: 0, gotSeq }))),
        Effect.flatMap((error): Effect.Effect<void, StoreError> => Effect.fail(error)),
      )

    // One notification in flight per session: writes committed while it is sent are told by one more after it.
    let announcing = false
    let again = false
    const send: Effect.Effect<void> = sql.unsafe(statements.notify, [id]).pipe(
      Effect.timeout(writeTimeout),
      Effect.ignore,
      Effect.zipRight(Effect.suspend(() => {
        if (!again) return Effect.sync(() => void (announcing = false))
        again = false
        return send
      })),
    )
    const announce: Effect.Effect<void> = Effect.suspend(() => {
      if (announcing) return Effect.sync(() => void (again = true))
      announcing = true
      return Effect.asVoid(Effect.forkDaemon(send))
    })

    /** One write statement, expected to touch `rows` rows (fewer: the lease moved on, the session exists, or another writer moved it on). */
    const run = (
      statement: string,
      params: ReadonlyArray<unknown>,
      rows: number,
      first: boolean,
      firstSeq: number,
      timeout: Duration.Duration = writeTimeout,
    ): Effect.Effect<void, StoreError> =>
      sql.unsafe(statement, params as Array<unknown>).raw.pipe(
        // The write is given up at the timeout, not after the driver's cancel of it, which travels the same dead path.
        Effect.disconnect,
        Effect.timeoutFail({ duration: timeout, onTimeout: () => "timeout" as const }),
        // The lease connection found gone while the write waits: the leases are lost now, not at the timeout.
        // Interruptible even where the write is not (a closing scope's flush), so the race ends with the write.
        (write) => Effect.raceFirst(write, Effect.interruptible(Effect.flatMap(holder.gone, (why) => Effect.fail({ gone: why })))),
        Effect.matchEffect({
          onSuccess: (result): Effect.Effect<void, StoreError> => {
            const inserted = (result as { readonly rowCount?: number | null }).rowCount ?? 0
            // A header alone is no event to follow.
            if (inserted === rows) return statement === statements.createEmpty ? Effect.void : announce
            return fenceOrStale(
              first
                ? Effect.fail(new StoreIOError({ path: id, operation: "create", cause: new Error(`session ${id} already exists`) }))
                : stale(firstSeq),
            )
          },
          onFailure: (error): Effect.Effect<void, StoreError> => {
            if (error === "timeout") return lose("no answer from the database; the outcome of the last write is unknown")
            if ("gone" in error) return lose(`its database connection ended: ${error.gone}; the outcome of the last write is unknown`)
            // No connection to send it on: nothing was written, the same write can be tried again.
            if (error.message === "Failed to acquire connection") return Effect.fail(io(first ? "create" : "append to")(error))
            if (failureOf(error).code === "23505") return fenceOrStale(stale(firstSeq))
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
        const why = ended()
        if (why !== undefined) return lose(why)
        const headerRow = [id, header.version, header.createdAt, JSON.stringify(header.cwd), header.title === undefined ? null : JSON.stringify(header.title)]
        if (events.length === 0) {
          if (!first) return Effect.void
          return run(statements.createEmpty, [...headerRow, generation], 1, true, 0)
        }
        const firstSeq = events[0]!.seq
        const last = events[events.length - 1]!
        const { turns, firstMessage } = facts(events)
        const stored = columns(events)
        const params = first
          ? [...stored.params, ...headerRow, last.time, turns, firstMessage, last.seq, generation]
          : [...stored.params, id, firstSeq - 1, last.seq, last.time, turns, firstMessage, generation]
        const timeout = timeoutFor(writeTimeout, stored.chars)
        return run(first ? statements.create : statements.append, params, events.length, first, firstSeq, timeout)
      })

    const remove: Effect.Effect<boolean, StoreError> = Effect.suspend(() => {
      if (lost !== undefined) return Effect.fail(lost)
      const why = ended()
      if (why !== undefined) return Effect.as(lose(why), false)
      // Deleting twice deletes nothing more: a write with no answer is an error to retry, not a lost lease.
      return sql.unsafe<{ readonly id: string }>(REMOVE, [id, generation]).pipe(
        Effect.mapError(io("delete")),
        Effect.disconnect,
        Effect.timeoutFail({ duration: writeTimeout, onTimeout: noAnswer("delete") }),
        Effect.flatMap((rows) => rows.length > 0 ? Effect.succeed(true) : Effect.as(fenceOrStale(Effect.void), false)),
      )
    })

    const release = Effect.suspend(() => (lost !== undefined ? Effect.void : giveUp))
    return { write, release, remove } satisfies Writer
  })
