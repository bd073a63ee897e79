// A database that stops answering (a network cut that drops every packet) never
// hangs a writer: its write fails within the write timeout as LeaseLost, with
// the outcome left for the next open to settle by reading what is stored.
import { expect, it } from "@effect/vitest"
import { connect, createServer, type Socket } from "node:net"
import { Effect } from "effect"
import * as Postgres from "../src/Postgres.js"
import { type Harness, withStore } from "./support/conformance.js"
import { chunkEvent, stamped, userMessage } from "./support/fixtures.js"
import { describePostgres, freshSchema, pgHarness, TEST_DATABASE_URL } from "./support/postgres.js"

/** A TCP relay to the test server that can start dropping every byte, both ways. */
const relay = async () => {
  const target = new URL(TEST_DATABASE_URL)
  const sockets: Array<Socket> = []
  let dropping = false
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname)
    sockets.push(client, upstream)
    client.on("data", (bytes) => dropping || upstream.write(bytes))
    upstream.on("data", (bytes) => dropping || client.write(bytes))
    client.on("error", () => upstream.destroy())
    upstream.on("error", () => client.destroy())
    client.on("close", () => upstream.destroy())
    upstream.on("close", () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { readonly port: number }).port
  const url = new URL(TEST_DATABASE_URL)
  url.port = String(port)
  return {
    url: url.toString(),
    drop: () => {
      dropping = true
    },
    /** The cut becomes final: every relayed connection closes. */
    cut: () => {
      for (const socket of sockets) socket.destroy()
      server.close()
    },
  }
}

describePostgres("postgres: a database that stops answering", () => {
  // Live clock: the write timeout is real time.
  it.live("a write gets LeaseLost within the write timeout, nothing unacknowledged is stored, and another store continues", () =>
    Effect.suspend(() => {
      const schema = freshSchema()
      const direct: Harness = pgHarness(schema)
      return Effect.gen(function*() {
        const network = yield* Effect.promise(relay)
        const h: Harness = { store: Postgres.layerPostgres({ url: network.url, schema, writeTimeout: "1 second", connectTimeout: "2 seconds" }) }
        const id = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/p" })
            yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi")]))
            yield* store.flush(id)
            network.drop()
            yield* store.append(id, [chunkEvent(3)])
            const lost = yield* Effect.flip(store.flush(id))
            expect(lost.message).toBe(
              `session ${id}: this process lost its lease (its database connection ended: no answer from the database; the outcome of the last write is unknown); it no longer writes the session — open it again to continue from what is stored`,
            )
            network.cut()
            return id
          }))
        const opened = yield* withStore(direct, (store) =>
          Effect.gen(function*() {
            // The server notices the cut connections and frees the lock; until then the session is locked.
            for (;;) {
              const attempt = yield* Effect.either(store.open(id))
              if (attempt._tag === "Right") return attempt.right
              if (attempt.left._tag !== "SessionLocked") return yield* attempt.left
              yield* Effect.sleep(100)
            }
          }))
        expect(opened.events.map((e) => [e.seq, e.type])).toStrictEqual([[1, "turn/start"], [2, "user/message"], [3, "turn/end"]])
      }).pipe(Effect.ensuring(Effect.promise(async () => direct.cleanup?.())))
    }), { timeout: 60_000 })
})
