/**
 * The one connection that keeps a PostgreSQL store's leases alive, however
 * many sessions it holds: a lease is a row of the `leases` table naming this
 * connection (its server process id and a random token), and it is live while
 * the server process still holds a session-level advisory lock on that token
 * (see `PgLease`). Writes go through the pool like reads, so a held session
 * costs no connection of its own.
 *
 * The connection is watched (its end, its errors, and a ping that must be
 * answered): once it is gone every lease taken under it is lost, each writer
 * is told on its next write, and the next lease taken opens a new one. The
 * server frees the token with the connection's end, so another process can
 * take the sessions as soon as the server sees it close.
 *
 * Its life is bounded on both ends by the store's lease timeout (the write
 * timeout, 30 s by default): the ping goes every sixth of it and must be
 * answered within another sixth, and the server is told to end the
 * connection's backend (so freeing its leases) when it has heard nothing on
 * it for the whole timeout (`idle_session_timeout`), when what it sent stays
 * unacknowledged that long (`tcp_user_timeout`), or when its keepalive probes
 * go unanswered. A middlebox that freezes (the TCP connection to it alive,
 * nothing forwarded) therefore cannot keep the leases past the timeout.
 */
import { randomBytes } from "node:crypto"
import { Deferred, Duration, Effect, ExecutionStrategy, Exit, Scope } from "effect"
import { StoreIOError } from "../StoreError.js"
import { type Connection, makeClient } from "./PgConnection.js"

/** One lease connection's life. */
export interface LeaseHolder {
  /** The server process id of the connection. */
  readonly pid: number
  /** The advisory lock key the connection holds while it lives: an int8, as text. */
  readonly token: string
  /** Why the connection is gone, once it is. */
  readonly ended: () => string | undefined
  /** Waits until the connection is found gone: why. */
  readonly gone: Effect.Effect<string>
}

export interface LeaseConnection {
  /** The live lease connection, opened if there is none. */
  readonly current: Effect.Effect<LeaseHolder, StoreIOError>
}

/**
 * The server-side settings of a lease connection for a lease timeout of
 * `timeout`: the backend ends after that long without a word from the
 * holder, or with what it sent unacknowledged, or after keepalive probes
 * (from a third of it, every sixth, three of them) go unanswered.
 */
export const serverSettings = (timeout: Duration.Duration): ReadonlyArray<readonly [string, number]> => {
  const ms = Math.max(1000, Math.floor(Duration.toMillis(timeout)))
  const seconds = (fraction: number) => Math.max(1, Math.floor(ms / fraction / 1000))
  return [
    ["idle_session_timeout", ms],
    ["tcp_user_timeout", ms],
    ["tcp_keepalives_idle", seconds(3)],
    ["tcp_keepalives_interval", seconds(6)],
    ["tcp_keepalives_count", 3],
  ]
}

/** The driver's client under a reserved connection: what tells of the connection's end. */
interface RawClient {
  readonly on: (event: string, listener: (value: unknown) => void) => unknown
  readonly off: (event: string, listener: (value: unknown) => void) => unknown
}

const rawClientOf = (reserved: unknown): RawClient | undefined => {
  const pg = typeof reserved === "object" && reserved !== null ? (reserved as { readonly pg?: unknown }).pg : undefined
  return typeof pg === "object" && pg !== null && typeof (pg as RawClient).on === "function" ? pg as RawClient : undefined
}

const messageOf = (value: unknown): string => value instanceof Error ? value.message : typeof value === "string" ? value : "the connection closed"

/** The driver's own words under a client error, if it carries them. */
const causeOf = (error: unknown): unknown => {
  const cause = typeof error === "object" && error !== null ? (error as { readonly cause?: unknown }).cause : undefined
  return cause instanceof Error ? cause : error
}

export const make = (
  connection: Connection,
  options: {
    readonly connectTimeout: Duration.Duration
    /** How long the server may go unheard before the leases are given up (see the module header). */
    readonly leaseTimeout: Duration.Duration
    readonly program?: string
  },
): Effect.Effect<LeaseConnection, never, Scope.Scope> =>
  Effect.gen(function*() {
    // Made now, so it closes after whatever the store made later (the final flushes need their leases).
    const outer = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const opening = yield* Effect.makeSemaphore(1)
    let live: LeaseHolder | undefined
    // Pinged every sixth of the lease timeout, answered within another: well inside the server's idle limit.
    const ping = Duration.millis(Math.max(100, Duration.toMillis(options.leaseTimeout) / 6))

    const open: Effect.Effect<LeaseHolder, StoreIOError> = Effect.gen(function*() {
      const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
      const io = (cause: { readonly cause?: unknown }) =>
        new StoreIOError({ path: connection.display, operation: "take the lease in", cause: cause.cause ?? cause })
      return yield* Effect.gen(function*() {
        const sql = yield* Scope.extend(
          makeClient(connection, {
            connectTimeout: options.connectTimeout,
            maxConnections: 1,
            ...(options.program !== undefined ? { program: options.program } : {}),
          }),
          scope,
        )
        const reserved = yield* Scope.extend(sql.reserve, scope).pipe(Effect.mapError(io))
        // A fresh random key: no other connection holds it (one that did would only make this one try again).
        let token = ""
        let pid = 0
        for (let attempt = 0; token === "" && attempt < 3; attempt++) {
          const candidate = randomBytes(8).readBigInt64BE().toString()
          const [row] = yield* reserved.execute(
            "SELECT pg_try_advisory_lock($1::int8) AS taken, pg_backend_pid() AS pid",
            [candidate],
            undefined,
          ).pipe(Effect.mapError(io))
          if (row?.taken === true) {
            token = candidate
            pid = Number(row.pid)
          }
        }
        if (token === "") return yield* io({ cause: new Error("no free lease key after three tries") })
        for (const [name, value] of serverSettings(options.leaseTimeout)) {
          yield* reserved.executeRaw(`SET ${name} = ${value}`, []).pipe(Effect.mapError(io))
        }

        const dead = yield* Deferred.make<string>()
        let ended: string | undefined
        const end = (reason: string) => {
          if (ended !== undefined) return
          ended = reason
          Deferred.unsafeDone(dead, Exit.succeed(reason))
        }
        const raw = rawClientOf(reserved)
        if (raw !== undefined) {
          const onEnd = (value: unknown) => end(messageOf(value))
          raw.on("error", onEnd)
          raw.on("end", onEnd)
          yield* Scope.addFinalizer(
            scope,
            Effect.sync(() => {
              raw.off("error", onEnd)
              raw.off("end", onEnd)
            }),
          )
        }
        const pinging = reserved.executeRaw("SELECT 1", []).pipe(
          // Not waiting for the driver's cancel of an unanswered ping, which travels the same dead path.
          Effect.disconnect,
          Effect.timeoutFail({ duration: ping, onTimeout: () => new Error("no answer from the database") }),
          Effect.delay(ping),
          Effect.forever,
          Effect.catchAll((error) => Effect.sync(() => end(messageOf(causeOf(error))))),
        )
        yield* Effect.forkIn(pinging, scope)
        // Once the connection is found dead it is closed (from outside its own scope, which the ping lives in).
        yield* Effect.forkIn(Effect.zipRight(Deferred.await(dead), Scope.close(scope, Exit.void)), outer)
        return { pid, token, ended: () => ended, gone: Deferred.await(dead) }
      }).pipe(Effect.onError(() => Scope.close(scope, Exit.void)))
    })

    const current = opening.withPermits(1)(Effect.suspend(() =>
      live !== undefined && live.ended() === undefined
        ? Effect.succeed(live)
        : Effect.tap(open, (holder) => Effect.sync(() => (live = holder)))
    ))
    return { current }
  })
