/**
 * Hints for a PostgreSQL follower: every write notifies its schema's channel
 * (see `channelOf`) with the session id in its own transaction (see
 * `PgLease`), so a session of another schema with the same id wakes nobody
 * here. A follower listens on a connection of its own, named
 * `turnlog-follow <pid> <host>` so an operator (or a test) can tell it from
 * the process's other connections.
 *
 * `PgClient.listen` goes silently deaf when its connection dies, and a second
 * `listen` on the same client is a defect, so the connection is supervised
 * here: it is watched (its end, its errors, and a ping that must be answered),
 * and a dead one is replaced with a backoff, forever. Each new connection
 * wakes the follower once, since writes made while it was deaf were not
 * announced; the follower resumes from its own cursor, so nothing is missed
 * or read twice. Polling stays on as the safety net.
 */
import { createHash } from "node:crypto"
import { hostname } from "node:os"
import { Deferred, Duration, Effect, Schedule, type Scope } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { type Connection, makeClient } from "./PgConnection.js"
import { hintQueue } from "./Streaming.js"

/**
 * The channel of the schema named `schema`: `turnlog_events_<schema>`, or the
 * name's MD5 in place of a name that is not a plain lower-case identifier or
 * would make the channel longer than PostgreSQL's 63 bytes.
 */
export const channelOf = (schema: string): string =>
  /^[a-z0-9_]{1,48}$/.test(schema)
    ? `turnlog_events_${schema}`
    : `turnlog_events_${createHash("md5").update(schema).digest("hex")}`

/** `turnlog-follow <pid> <host>`, cut to the 63 bytes PostgreSQL keeps. */
export const followerName = (): string => Buffer.from(`turnlog-follow ${process.pid} ${hostname()}`).subarray(0, 63).toString()

/** How often the listening connection must answer a ping to count as alive. */
const PING = Duration.seconds(5)

/** The driver's client under a reserved connection: what `LISTEN` delivers notifications through. */
interface RawClient {
  readonly on: (event: string, listener: (value: unknown) => void) => unknown
  readonly off: (event: string, listener: (value: unknown) => void) => unknown
}

const rawClientOf = (reserved: unknown): RawClient | undefined => {
  const pg = typeof reserved === "object" && reserved !== null ? (reserved as { readonly pg?: unknown }).pg : undefined
  return typeof pg === "object" && pg !== null && typeof (pg as RawClient).on === "function" ? pg as RawClient : undefined
}

/**
 * Listens for writes to `id` until the scope closes; the returned effect
 * waits for the next hint (at once if one came since the last wait).
 */
export const listen = (
  connection: Connection,
  channel: string,
  id: SessionId,
  connectTimeout: Duration.Duration,
): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const hints = yield* hintQueue

    // One connection's life: it returns when the connection is found dead, fails when it cannot be made.
    const session = Effect.scoped(Effect.gen(function*() {
      const sql = yield* makeClient(connection, { connectTimeout, maxConnections: 1, applicationName: followerName() })
      const reserved = yield* sql.reserve
      const raw = rawClientOf(reserved)
      const dead = yield* Deferred.make<void>()
      const onNotification = (message: unknown) => {
        const { channel: heard, payload } = message as { readonly channel?: unknown; readonly payload?: unknown }
        if (heard === channel && payload === id) hints.signal()
      }
      const onEnd = () => Deferred.unsafeDone(dead, Effect.void)
      if (raw !== undefined) {
        raw.on("notification", onNotification)
        raw.on("error", onEnd)
        raw.on("end", onEnd)
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            raw.off("notification", onNotification)
            raw.off("error", onEnd)
            raw.off("end", onEnd)
          })
        )
      }
      yield* reserved.executeRaw(`LISTEN ${channel}`, [])
      // Writes made while no connection listened were not announced: look now.
      hints.signal()
      const ping = reserved.executeRaw("SELECT 1", []).pipe(
        Effect.timeout(PING),
        Effect.delay(PING),
        Effect.forever,
        Effect.catchAll(() => Effect.void),
      )
      // Without the driver's client there are no notifications: the ping alone keeps the connection honest.
      yield* Effect.raceFirst(Deferred.await(dead), ping)
    }))

    const supervised = session.pipe(
      Effect.retry(Schedule.exponential(Duration.millis(100)).pipe(Schedule.union(Schedule.spaced(Duration.seconds(5))))),
      Effect.zipRight(Effect.sleep(Duration.millis(100))),
      Effect.forever,
    )
    yield* Effect.forkScoped(supervised)
    return hints.wait
  })
