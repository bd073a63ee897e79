// Many sessions in one process on PostgreSQL: a store holds 200 sessions with
// its pool of 20 connections and one lease connection, and writes to each; when
// the lease connection ends every session is told; a session whose write waits
// on a row lock another connection holds does not hold up a write to another
// session of the same store.
import { expect, it } from "@effect/vitest"
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Fiber, Option, Redacted, Schedule } from "effect"
import type { SessionId } from "@turnlog/protocol"
import * as Postgres from "../src/Postgres.js"
import { withStore } from "./support/conformance.js"
import { stamped, userMessage } from "./support/fixtures.js"
import { admin, describePostgres, dropSchema, freshSchema, leaseBackend, TEST_DATABASE_URL } from "./support/postgres.js"

const SESSIONS = 200

/** The connections this process has open to the server, by kind (the follower's and the test's own aside). */
const connectionsOfThisProcess = admin<{ readonly count: number }>(
  `SELECT count(*)::int AS count FROM pg_stat_activity WHERE application_name LIKE $1`,
  [`turnlog ${process.pid} %`],
).pipe(Effect.map(([row]) => row!.count))

/** A connection of its own holding `statements`' locks until the scope closes (then rolled back). */
const holdLocks = (statements: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* PgClient.make({ url: Redacted.make(TEST_DATABASE_URL), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
    const connection = yield* sql.reserve
    yield* connection.executeRaw("BEGIN", [])
    for (const statement of statements) yield* connection.executeRaw(statement, [])
    yield* Effect.addFinalizer(() => Effect.ignore(connection.executeRaw("ROLLBACK", [])))
  })

/** Waits until a write of this process's store waits for a row lock (looking every 20 ms). */
const writeWaitsOnRowLock = admin<{ readonly waiting: number }>(
  `SELECT count(*)::int AS waiting FROM pg_stat_activity
   WHERE wait_event_type = 'Lock' AND application_name LIKE $1 AND query LIKE '%UPDATE sessions%'`,
  [`turnlog ${process.pid} %`],
).pipe(
  Effect.flatMap(([row]) => (row!.waiting > 0 ? Effect.void : Effect.fail("no write waits for the row lock"))),
  Effect.retry({ times: 250, schedule: Schedule.spaced(Duration.millis(20)) }),
  Effect.orDie,
)

describePostgres("postgres: many sessions in one process", () => {
  it.live(`holds ${SESSIONS} sessions with 21 connections, writes to each, and tells each one when the lease connection ends`, () =>
    Effect.suspend(() => {
      const schema = freshSchema()
      return withStore({ store: Postgres.layerPostgres({ url: TEST_DATABASE_URL, schema }) }, (store) =>
        Effect.gen(function*() {
          const ids = yield* Effect.forEach(Array.from({ length: SESSIONS }), (_, i) => store.create({ cwd: `/p${i}` }), {
            concurrency: 50,
          })
          // Each session appended to and flushed at once, as an editor's prompts on many sessions would be.
          yield* Effect.forEach(ids, (id, i) =>
            Effect.zipRight(
              store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage(`prompt ${i}`)])),
              store.flush(id),
            ), { concurrency: "unbounded", discard: true })
          const stored = yield* admin<{ readonly sessions: number; readonly events: number; readonly live: number }>(
            `SELECT (SELECT count(*)::int FROM ${schema}.sessions WHERE last_seq = 2) AS sessions,
                    (SELECT count(*)::int FROM ${schema}.events) AS events,
                    (SELECT count(DISTINCT holder_pid)::int FROM ${schema}.leases WHERE holder_pid <> 0) AS live`,
          )
          expect(stored).toStrictEqual([{ sessions: SESSIONS, events: 2 * SESSIONS, live: 1 }])
          // The pool (at most 20) and the one lease connection, however many sessions are held.
          const connections = yield* connectionsOfThisProcess
          expect(connections).toBeLessThanOrEqual(21)
          const listed = yield* store.list()
          expect(listed.sessions.length).toBe(SESSIONS)
          expect(listed.sessions.every((s) => s.status === "running")).toBe(true)

          // Ending the lease connection loses every lease at once; each session is told on its next write.
          const backend = (yield* leaseBackend(ids[0]!, schema))!
          // Waits until the backend is gone (and its token with it), so no write can still pass the fence.
          yield* admin("SELECT pg_terminate_backend($1, 5000)", [backend])
          const outcomes = yield* Effect.forEach(ids, (id) =>
            Effect.zipRight(
              store.append(id, [{ seq: 3, time: "2025-01-02T03:04:05.678Z", type: "turn/end", data: { reason: "completed" } }]),
              Effect.flip(store.flush(id)),
            ), { concurrency: 20 })
          expect(outcomes.map((e) => e._tag)).toStrictEqual(ids.map(() => "LeaseLost"))
          expect(outcomes[0]!.message).toMatch(new RegExp(`^session ${ids[0]}: this process lost its lease \\(its database connection ended: .+\\)`))
          expect(yield* admin(`SELECT count(*)::int AS events FROM ${schema}.events`)).toStrictEqual([{ events: 2 * SESSIONS }])
        })).pipe(Effect.ensuring(Effect.promise(() => dropSchema(schema))))
    }), { timeout: 120_000 })

  it.live("lists 6,250 interrupted sessions, one of them held by a live store, in one pass over the leases", () =>
    Effect.suspend(() => {
      const schema = freshSchema()
      const h = { store: Postgres.layerPostgres({ url: TEST_DATABASE_URL, schema }) }
      return Effect.gen(function*() {
        // Left by processes that stopped mid-turn: a turn/start each, and a lease row naming a holder long gone.
        yield* withStore(h, () => Effect.void)
        yield* admin(`INSERT INTO ${schema}.sessions (id, version, created_at, cwd, title, updated_at, turns, first_message, last_seq)
          SELECT 's' || lpad(i::text, 5, '0'), 2, '2026-01-01T00:00:00.000Z', '"/p"', NULL, '2026-01-01T00:00:01.000Z', 1, 'hi', 1
          FROM generate_series(1, 6250) AS i`)
        yield* admin(`INSERT INTO ${schema}.events (session_id, seq, type, "time", data)
          SELECT id, 1, 'turn/start', '2026-01-01T00:00:01.000Z', '{}' FROM ${schema}.sessions`)
        yield* admin(`INSERT INTO ${schema}.leases (session_id, generation, holder_pid, holder_token)
          SELECT id, 1, 999999, 42 FROM ${schema}.sessions`)
        yield* admin(`ANALYZE ${schema}.sessions, ${schema}.events, ${schema}.leases`)
        const statuses = yield* withStore(h, (holder) =>
          Effect.gen(function*() {
            // One of them taken over (its turn closed) and a new turn started: running while this store holds it.
            const opened = yield* holder.open("s00001" as SessionId)
            yield* holder.append("s00001" as SessionId, stamped(opened.events.length + 1, [{ type: "turn/start", data: {} }]))
            yield* holder.flush("s00001" as SessionId)
            return yield* withStore(h, (lister) =>
              Effect.map(lister.list(), (listed) => {
                const counts: Record<string, number> = {}
                for (const summary of listed.sessions) counts[summary.status] = (counts[summary.status] ?? 0) + 1
                return counts
              }))
          }))
        expect(statuses).toStrictEqual({ interrupted: 6249, running: 1 })
      }).pipe(Effect.ensuring(Effect.promise(() => dropSchema(schema))))
    }), { timeout: 120_000 })

  it.live("a session whose write waits on a row lock held elsewhere does not hold up a write to another session", () =>
    Effect.suspend(() => {
      const schema = freshSchema()
      return withStore({ store: Postgres.layerPostgres({ url: TEST_DATABASE_URL, schema }) }, (store) =>
        Effect.gen(function*() {
          const stalled = yield* store.create({ cwd: "/stalled" })
          const live = yield* store.create({ cwd: "/live" })
          const start = stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi")])
          yield* store.append(stalled, start)
          const waiting = yield* Effect.scoped(Effect.gen(function*() {
            yield* holdLocks([`SELECT 1 FROM ${schema}.sessions WHERE id = '${stalled}' FOR UPDATE`])
            const flush = yield* Effect.fork(store.flush(stalled))
            yield* writeWaitsOnRowLock
            const began = Date.now()
            yield* store.append(live, start).pipe(
              Effect.zipRight(store.flush(live)),
              Effect.timeoutFail({ duration: Duration.seconds(5), onTimeout: () => "the live session's write waited for the stalled one" }),
            )
            const took = Date.now() - began
            expect(took).toBeLessThan(1000)
            expect((yield* store.read(live)).events.map((e) => [e.seq, e.type])).toStrictEqual([[1, "turn/start"], [2, "user/message"]])
            expect(Option.isNone(yield* Fiber.poll(flush))).toBe(true)
            return flush
          }))
          // The row lock is gone with its transaction: the stalled write completes.
          yield* Fiber.join(waiting)
          expect((yield* store.read(stalled)).events.map((e) => e.seq)).toStrictEqual([1, 2])
        })).pipe(Effect.ensuring(Effect.promise(() => dropSchema(schema))))
    }), { timeout: 60_000 })
})
