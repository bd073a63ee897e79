// What is particular to the PostgreSQL layer: its schema and its versions, the
// stale-writer check inside the write statement, and a lease lost with its connection.
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { hostname } from "node:os"
import { SessionLog } from "@turnlog/protocol"
import * as Postgres from "../src/Postgres.js"
import { type Harness, withStore } from "./support/conformance.js"
import { chunkEvent, stamped, userMessage } from "./support/fixtures.js"
import { admin, describePostgres, dropSchema, freshSchema, leaseBackend, TEST_DATABASE_URL, terminateLease } from "./support/postgres.js"

const turn = stamped(1, [{ type: "turn/start", data: {} }, userMessage("hello"), { type: "turn/end", data: { reason: "completed" } }])

const withSchema = <A, E>(f: (h: Harness, schema: string, where: string) => Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    const schema = freshSchema()
    const where = `${TEST_DATABASE_URL} (schema ${schema})`
    return f({ store: Postgres.layerPostgres({ url: TEST_DATABASE_URL, schema }) }, schema, where).pipe(
      Effect.ensuring(Effect.promise(() => dropSchema(schema))),
    )
  })

const writeSession = (h: Harness, events: ReadonlyArray<SessionLog.SessionEvent> = turn) =>
  withStore(h, (store) =>
    Effect.gen(function*() {
      const id = yield* store.create({ cwd: "/p" })
      yield* store.append(id, events)
      yield* store.flush(id)
      return id
    }))

describePostgres("postgres: schema, versions and refusals", () => {
  it.effect("keeps events as json text with int4 seq, schema version 2, analyzed after creating", () =>
    withSchema((h, schema) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        expect(yield* admin(`SELECT version FROM ${schema}.turnlog_schema`)).toStrictEqual([{ version: 2 }])
        expect(
          yield* admin(
            `SELECT column_name, data_type FROM information_schema.columns
           WHERE table_schema = $1 AND table_name = 'events' ORDER BY ordinal_position`,
            [schema],
          ),
        ).toStrictEqual([
          { column_name: "session_id", data_type: "text" },
          { column_name: "seq", data_type: "integer" },
          { column_name: "type", data_type: "text" },
          { column_name: "time", data_type: "text" },
          { column_name: "data", data_type: "json" },
        ])
        expect(yield* admin(`SELECT session_id, seq, type, "time", data::text AS data FROM ${schema}.events ORDER BY seq`)).toStrictEqual([
          { session_id: id, seq: 1, type: "turn/start", time: turn[0]!.time, data: "{}" },
          { session_id: id, seq: 2, type: "user/message", time: turn[1]!.time, data: JSON.stringify(turn[1]!.data) },
          { session_id: id, seq: 3, type: "turn/end", time: turn[2]!.time, data: '{"reason":"completed"}' },
        ])
        expect(yield* admin(`SELECT id, version, cwd::text, title::text, turns, first_message, last_seq FROM ${schema}.sessions`)).toStrictEqual([
          { id, version: SessionLog.LOG_VERSION, cwd: '"/p"', title: null, turns: 1, first_message: "hello", last_seq: 3 },
        ])
        const analyzed = yield* admin<{ readonly relname: string }>(
          `SELECT relname FROM pg_stat_user_tables WHERE schemaname = $1 AND last_analyze IS NOT NULL ORDER BY relname`,
          [schema],
        )
        expect(analyzed.map((r) => r.relname)).toStrictEqual(["events", "leases", "sessions", "turnlog_schema"])
      })
    ))

  it.effect("gives back exactly what was written: a NUL escape, key order and repeated structure", () =>
    withSchema((h) =>
      Effect.gen(function*() {
        const odd = stamped(1, [userMessage('a\u0000b "quoted" \\ back\nslash 1e400?'), { type: "turn/start", data: {} }])
        const id = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/p\u0000q", title: "t\u0000" })
            yield* store.append(id, odd)
            return id
          }))
        const loaded = yield* withStore(h, (store) => store.read(id))
        expect(JSON.stringify(loaded.events)).toBe(JSON.stringify(odd))
        expect(loaded.header).toMatchObject({ cwd: "/p\u0000q", title: "t\u0000" })
        expect((yield* withStore(h, (store) => store.list())).sessions.map((s) => s.title)).toStrictEqual(["t\u0000"])
      })
    ))

  it.effect("two stores starting together on a new schema both create it once", () =>
    withSchema((h, schema) =>
      Effect.gen(function*() {
        yield* Effect.all([withStore(h, () => Effect.void), withStore(h, () => Effect.void), withStore(h, () => Effect.void)], {
          concurrency: "unbounded",
        })
        expect(yield* admin(`SELECT version FROM ${schema}.turnlog_schema`)).toStrictEqual([{ version: 2 }])
      })
    ))

  it.effect("refuses a newer database schema and a newer session log version", () =>
    withSchema((h, schema, where) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        yield* admin(`UPDATE ${schema}.sessions SET version = 5`)
        expect(yield* Effect.flip(withStore(h, (store) => store.read(id)))).toMatchObject({
          _tag: "UnsupportedVersion",
          file: where,
          found: 5,
          supported: 4,
        })
        const listed = yield* withStore(h, (store) => store.list())
        expect(listed.unreadable.map((u) => [u.id, u.error._tag])).toStrictEqual([[id, "UnsupportedVersion"]])
        yield* admin(`UPDATE ${schema}.turnlog_schema SET version = 7`)
        const newer = yield* Effect.flip(withStore(h, (store) => store.list()))
        expect(newer).toMatchObject({ _tag: "UnsupportedVersion", file: where, found: 7, supported: 2, subject: "database schema" })
        expect(newer.message).toBe(`${where}: database schema version 7 was written by a newer turnlog (this build reads version 2)`)
      })
    ))

  it.effect("refuses an unknown event type, an event that is not one, and events missing from the session", () =>
    withSchema((h, schema, where) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        yield* admin(`UPDATE ${schema}.events SET type = 'memory/compact' WHERE seq = 2`)
        const unknown = yield* Effect.flip(withStore(h, (store) => store.read(id)))
        expect(unknown.message).toBe(`${where}: session ${id}, event 2: unknown event type "memory/compact" (written by a newer turnlog?)`)
        yield* admin(`UPDATE ${schema}.events SET type = 'user/message', data = '{"message":{}}' WHERE seq = 2`)
        expect(yield* Effect.flip(withStore(h, (store) => store.open(id)))).toMatchObject({ _tag: "SessionCorrupt", line: 2 })
        yield* admin(`UPDATE ${schema}.events SET data = $1::json WHERE seq = 2`, [JSON.stringify(turn[1]!.data)])
        yield* admin(`DELETE FROM ${schema}.events WHERE seq = 3`)
        const missing = yield* Effect.flip(withStore(h, (store) => store.open(id)))
        expect(missing.message).toBe(`${where}: session ${id}, event 3: the session records 3 events, 2 are stored`)
        expect(yield* admin(`SELECT count(*)::int4 AS n FROM ${schema}.events`)).toStrictEqual([{ n: 2 }])
      })
    ))

  it.effect("refuses rows past what the session records unless a writer has committed them since", () =>
    withSchema((h, schema, where) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        // A row the session's last_seq never counted: damage.
        yield* admin(
          `INSERT INTO ${schema}.events (session_id, seq, type, "time", data) VALUES ($1, 4, 'turn/start', $2, '{}')`,
          [id, turn[0]!.time],
        )
        const extra = yield* Effect.flip(withStore(h, (store) => store.read(id)))
        expect(extra.message).toBe(`${where}: session ${id}, event 4: the session records 3 events, 4 are stored`)
      })
    ))

  it.live("a read while another store appends gives a whole prefix of the session, never a false refusal", () =>
    withSchema((h) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        const writing = withStore(h, (store) =>
          Effect.gen(function*() {
            yield* store.open(id)
            for (let n = 0; n < 150; n++) {
              const seq = 4 + n * 2
              yield* store.append(id, stamped(seq, [{ type: "turn/start", data: {} }, { type: "turn/end", data: { reason: "completed" } }]))
              yield* store.flush(id)
            }
          }))
        const reading = withStore(h, (store) =>
          Effect.gen(function*() {
            const counts: Array<number> = []
            for (let n = 0; n < 150; n++) {
              const read = yield* store.read(id)
              expect(read.events.map((e) => e.seq)).toStrictEqual(read.events.map((_, i) => i + 1))
              counts.push(read.events.length)
            }
            return counts
          }))
        const [, counts] = yield* Effect.all([writing, reading], { concurrency: 2 })
        expect(counts).toStrictEqual([...counts].sort((a, b) => a - b))
        expect((yield* withStore(h, (store) => store.read(id))).events).toHaveLength(303)
      })
    ))

  it.effect("a batch whose first seq is not the stored next seq, or whose seqs are taken, is StaleWriter and writes nothing", () =>
    withSchema((h, schema) =>
      withStore(h, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/p" })
          yield* store.append(id, turn)
          yield* store.flush(id)
          // Another writer moved the session on behind this store's back.
          yield* admin(`UPDATE ${schema}.sessions SET last_seq = 4`)
          yield* admin(`INSERT INTO ${schema}.events VALUES ($1, 4, 'turn/start', 't', '{}')`, [id])
          yield* store.append(id, [chunkEvent(4)])
          expect(yield* Effect.flip(store.flush(id))).toMatchObject({ _tag: "StaleWriter", sessionId: id, expectedSeq: 5, gotSeq: 4 })
          // Rows with the batch's seqs exist although last_seq says otherwise: the key refuses them.
          yield* admin(`UPDATE ${schema}.sessions SET last_seq = 3`)
          expect(yield* Effect.flip(store.flush(id))).toMatchObject({ _tag: "StaleWriter", expectedSeq: 5, gotSeq: 4 })
          expect(yield* admin(`SELECT seq, type FROM ${schema}.events WHERE seq = 4`)).toStrictEqual([{ seq: 4, type: "turn/start" }])
        }))
    ))
})

describePostgres("postgres: the lease", () => {
  it.effect("names the holder by host and pid, and is held on a connection of its own", () =>
    withSchema((h, schema) =>
      withStore(h, (first) =>
        Effect.gen(function*() {
          const id = yield* first.create({ cwd: "/p" })
          yield* first.append(id, [chunkEvent(1)])
          yield* first.flush(id)
          const backend = yield* leaseBackend(id, schema)
          expect(yield* admin(`SELECT application_name FROM pg_stat_activity WHERE pid = $1`, [backend])).toStrictEqual([
            { application_name: `turnlog ${process.pid} ${hostname()}`.slice(0, 63) },
          ])
          const locked = yield* Effect.flip(withStore(h, (second) => second.open(id)))
          expect(locked).toMatchObject({ _tag: "SessionLocked", sessionId: id, holder: { pid: process.pid, host: hostname() } })
          expect(locked.message).toBe(`session ${id} is open for writing on host ${hostname()} by process ${process.pid}`)
        }))
    ))

  it.effect("a write that finds its connection ended is LeaseLost, stores nothing, and never writes again; another store continues", () =>
    withSchema((h, schema) =>
      Effect.gen(function*() {
        const id = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/p" })
            yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi")]))
            yield* store.flush(id)
            yield* store.append(id, [chunkEvent(3)])
            yield* terminateLease(id, schema)
            const lost = yield* Effect.flip(store.flush(id))
            expect(lost._tag).toBe("LeaseLost")
            expect(lost.message).toMatch(
              new RegExp(
                `^session ${id}: this process lost its lease \\(its database connection ended: .+\\); it no longer writes the session — open it again to continue from what is stored$`,
              ),
            )
            // Another process takes the session meanwhile; the lost writer still never writes.
            const taken = yield* withStore(h, (other) => Effect.map(other.open(id), (o) => o.events.length))
            expect(taken).toBe(3)
            expect(yield* Effect.flip(store.flush(id))).toMatchObject({ _tag: "LeaseLost" })
            // Appending only buffers; the flush that would write it is refused.
            yield* store.append(id, [chunkEvent(4)])
            expect(yield* Effect.flip(store.flush(id))).toMatchObject({ _tag: "LeaseLost" })
            return id
          }))
        expect(yield* admin(`SELECT seq, type FROM ${schema}.events ORDER BY seq`)).toStrictEqual([
          { seq: 1, type: "turn/start" },
          { seq: 2, type: "user/message" },
          { seq: 3, type: "turn/end" },
        ])
        const reopened = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const opened = yield* store.open(id)
            yield* store.append(id, [chunkEvent(4)])
            return opened
          }))
        expect(reopened.recovery).toStrictEqual({})
        expect((yield* withStore(h, (store) => store.read(id))).events.map((e) => e.seq)).toStrictEqual([1, 2, 3, 4])
      })
    ))
})
