// The lease's bounds when a middlebox between a writer and the server freezes
// (its TCP connections stay open, nothing is forwarded either way, nothing
// new is let through): the writer's flush fails with LeaseLost within the
// lease timeout (3 s here), the server ends the frozen lease connection's
// backend by itself after the same timeout so another store takes the
// session, and the write the frozen middlebox held, delivered once it thaws,
// does not commit: the lease's generation has moved on.
import { expect, it } from "@effect/vitest"
import { hostname } from "node:os"
import { connect, createServer, type Socket } from "node:net"
import { Duration, Effect, Schedule } from "effect"
import * as Postgres from "../src/Postgres.js"
import { type Harness, withStore } from "./support/conformance.js"
import { stamped, userMessage } from "./support/fixtures.js"
import { admin, describePostgres, freshSchema, leaseBackend, pgHarness, TEST_DATABASE_URL } from "./support/postgres.js"

/** A TCP relay to the test server that can freeze (hold every byte and close, refuse new connections) and thaw. */
const relay = async () => {
  const target = new URL(TEST_DATABASE_URL)
  let frozen = false
  const held: Array<() => void> = []
  const forward = (from: Socket, to: Socket) => {
    from.on("data", (bytes) => (frozen ? held.push(() => to.write(bytes)) : to.write(bytes)))
    from.on("end", () => (frozen ? held.push(() => to.end()) : to.end()))
    from.on("error", () => (frozen ? held.push(() => to.destroy()) : to.destroy()))
  }
  const server = createServer((client) => {
    if (frozen) return void client.destroy()
    const upstream = connect(Number(target.port || 5432), target.hostname)
    forward(client, upstream)
    forward(upstream, client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = new URL(TEST_DATABASE_URL)
  url.port = String((server.address() as { readonly port: number }).port)
  return {
    url: url.toString(),
    freeze: () => void (frozen = true),
    thaw: () => {
      frozen = false
      for (const deliver of held.splice(0)) deliver()
    },
    close: () => server.close(),
  }
}

const eventually = <A, E>(check: Effect.Effect<A, E>, what: string) =>
  check.pipe(
    Effect.retry(Schedule.spaced(Duration.millis(100))),
    Effect.timeoutFail({ duration: Duration.seconds(60), onTimeout: () => new Error(`timed out waiting for ${what}`) }),
  )

describePostgres("postgres: lease bounds behind a frozen middlebox", () => {
  it.live("LeaseLost within the lease timeout, the server frees the lease by itself, and the held write never commits", () =>
    Effect.suspend(() => {
      const schema = freshSchema()
      const direct: Harness = pgHarness(schema)
      return Effect.gen(function*() {
        const network = yield* Effect.promise(relay)
        const frozenSide: Harness = {
          store: Postgres.layerPostgres({ url: network.url, schema, writeTimeout: "3 seconds", connectTimeout: "3 seconds" }),
        }
        yield* withStore(frozenSide, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/p" })
            yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("one"), { type: "turn/end", data: { reason: "completed" } }]))
            yield* store.flush(id)
            const holderBefore = yield* leaseBackend(id, schema)
            expect(holderBefore).toBeTypeOf("number")

            network.freeze()
            const started = Date.now()
            yield* store.append(id, stamped(4, [{ type: "turn/start", data: {} }, userMessage("stale")]))
            const lost = yield* Effect.flip(store.flush(id))
            const waited = Date.now() - started
            // The ping (every half second, answered within another) finds the lease connection dead first.
            expect(lost.message).toBe(
              `session ${id}: this process lost its lease (its database connection ended: no answer from the database; the outcome of the last write is unknown); it no longer writes the session — open it again to continue from what is stored`,
            )
            // Within the lease timeout of 3 s (and not after a wait for a cancel on the dead path too).
            expect(waited).toBeLessThan(5_000)

            // The server ends the frozen lease connection's backend by itself (idle_session_timeout):
            // the lease is free while the middlebox is still frozen.
            yield* eventually(
              Effect.filterOrFail(leaseBackend(id, schema), (pid) => pid === undefined, () => "still held"),
              "the server to free the lease",
            )
            const taken = yield* withStore(direct, (other) =>
              Effect.gen(function*() {
                const opened = yield* other.open(id)
                const [clock] = yield* admin<{ readonly at: string }>("SELECT clock_timestamp()::text AS at")
                // The middlebox thaws: the write it held reaches the server and is fenced off.
                network.thaw()
                const name = `turnlog ${process.pid} ${hostname()}`
                yield* eventually(
                  Effect.filterOrFail(
                    admin<{ readonly n: number }>(
                      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle'
                         AND state_change > $2::timestamptz AND query LIKE '%UPDATE sessions SET last_seq%'`,
                      [name, clock!.at],
                    ),
                    ([row]) => (row?.n ?? 0) > 0,
                    () => "not yet run",
                  ),
                  "the held write to run",
                )
                const after = yield* other.read(id)
                yield* other.append(id, stamped(4, [{ type: "turn/start", data: {} }, userMessage("fresh")]))
                yield* other.flush(id)
                const last = yield* other.read(id)
                return { opened, after, last }
              }))
            expect(taken.opened.events.map((e) => e.seq)).toStrictEqual([1, 2, 3])
            expect(taken.after.events.map((e) => [e.seq, e.type])).toStrictEqual([[1, "turn/start"], [2, "user/message"], [3, "turn/end"]])
            expect(taken.last.events.map((e) => [e.seq, e.type])).toStrictEqual([
              [1, "turn/start"],
              [2, "user/message"],
              [3, "turn/end"],
              [4, "turn/start"],
              [5, "user/message"],
            ])
            expect(JSON.stringify(taken.last.events[4]!.data)).toContain("fresh")
          }))
        network.close()
      }).pipe(Effect.ensuring(Effect.promise(async () => direct.cleanup?.())))
    }), { timeout: 120_000 })
})
