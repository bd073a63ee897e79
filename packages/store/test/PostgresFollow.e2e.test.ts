// A PostgreSQL follower that loses its listening connection: the test ends
// that backend (found by the follower's own application_name, so nothing else
// on the server is touched), and the follower reconnects and resumes from its
// cursor, missing and repeating nothing.
import { expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Schedule, Stream } from "effect"
import { followerName } from "../src/internal/PgFollow.js"
import { withStore } from "./support/conformance.js"
import { chunkEvent } from "./support/fixtures.js"
import { admin, describePostgres, pgHarness } from "./support/postgres.js"

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

/** The backends of this process's followers. */
const followers = () =>
  Effect.map(
    admin<{ readonly pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1 ORDER BY pid", [followerName()]),
    (rows) => rows.map((row) => row.pid),
  )

const eventually = <A>(check: Effect.Effect<A, unknown>, what: string) =>
  check.pipe(
    Effect.retry(Schedule.spaced(Duration.millis(50))),
    Effect.timeoutFail({ duration: Duration.seconds(60), onTimeout: () => new Error(`timed out waiting for ${what}`) }),
  )

describePostgres("postgres: follow", () => {
  it.live("reconnects after pg_terminate_backend on its listening connection and resumes from its cursor", () =>
    Effect.gen(function*() {
      const h = pgHarness()
      yield* Effect.gen(function*() {
        const id = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/followed" })
            yield* store.append(id, range(1, 3).map((s) => chunkEvent(s)))
            yield* store.flush(id)
            return id
          }))
        yield* withStore(h, (reader) =>
          withStore(h, (writer) =>
            Effect.gen(function*() {
              const seen: Array<number> = []
              const follower = yield* Effect.fork(
                Stream.runForEach(reader.follow(id, 1), (event) => Effect.sync(() => void seen.push(event.seq))),
              )
              const until = (n: number) => eventually(Effect.suspend(() => (seen.length >= n ? Effect.void : Effect.fail("waiting"))), `${n} events`)
              yield* until(3)
              const [before] = yield* eventually(
                Effect.filterOrFail(followers(), (pids) => pids.length === 1, () => "no follower connection"),
                "the follower's connection",
              )
              yield* writer.open(id)
              yield* writer.append(id, range(4, 6).map((s) => chunkEvent(s)))
              yield* writer.flush(id)
              yield* until(6)

              yield* admin("SELECT pg_terminate_backend($1)", [before])
              // Written while the follower may be deaf: found when it reconnects (or by its poll).
              yield* writer.append(id, range(7, 9).map((s) => chunkEvent(s)))
              yield* writer.flush(id)
              const [after] = yield* eventually(
                Effect.filterOrFail(followers(), (pids) => pids.length === 1 && pids[0] !== before, () => "not reconnected"),
                "a new follower connection",
              )
              expect(after).not.toBe(before)
              yield* until(9)
              yield* writer.append(id, range(10, 12).map((s) => chunkEvent(s)))
              yield* writer.flush(id)
              yield* until(12)
              yield* Effect.sleep(Duration.millis(500))
              expect(seen).toStrictEqual(range(1, 12))
              yield* Fiber.interrupt(follower)
            })))
        // The listening connection goes with the follower.
        yield* eventually(Effect.filterOrFail(followers(), (pids) => pids.length === 0, () => "still listening"), "no follower")
      }).pipe(Effect.ensuring(Effect.promise(async () => h.cleanup?.())))
    }), 120_000)
})
