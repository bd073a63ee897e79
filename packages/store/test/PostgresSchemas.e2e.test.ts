// Leases and notifications belong to a schema: the same session id in two
// schemas is two sessions, written at the same time, each follower woken by
// its own schema's writes only; and a role that cannot write the tables can
// neither take a lease nor keep the writer out by taking advisory locks.
import { expect, it } from "@effect/vitest"
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Deferred, Duration, Effect, Exit, Redacted, Schedule, Stream } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { channelOf } from "../src/internal/PgFollow.js"
import * as Postgres from "../src/Postgres.js"
import { withStore } from "./support/conformance.js"
import { stamped, userMessage } from "./support/fixtures.js"
import { admin, describePostgres, dropSchema, freshSchema, TEST_DATABASE_URL } from "./support/postgres.js"

const store = (schema: string, url = TEST_DATABASE_URL) => ({ store: Postgres.layerPostgres({ url, schema }) })
const turn = (text: string) => stamped(1, [{ type: "turn/start", data: {} }, userMessage(text)])

describePostgres("postgres: leases and notifications by schema", () => {
  it.live("the same session id in two schemas is held and written by two stores at once; each schema notifies its own channel", () =>
    Effect.suspend(() => {
      const [one, two] = [freshSchema(), freshSchema()]
      const id = "20260101T000000-5c4e3a11" as SessionId
      return Effect.scoped(Effect.gen(function*() {
        // A listener on schema one's channel, listening before anything is written (it hears its own "ready" first).
        const sql = yield* PgClient.make({ url: Redacted.make(TEST_DATABASE_URL), maxConnections: 2 }).pipe(Effect.provide(Reactivity.layer))
        const heard: Array<string> = []
        const writtenInOne = yield* Deferred.make<void>()
        yield* Effect.forkScoped(Stream.runForEach(sql.listen(channelOf(one)), (payload) =>
          Effect.sync(() => {
            heard.push(payload)
            if (payload === id) Deferred.unsafeDone(writtenInOne, Exit.void)
          })))
        yield* sql`SELECT pg_notify(${channelOf(one)}, 'ready')`.pipe(
          Effect.zipRight(Effect.suspend(() => (heard.includes("ready") ? Effect.void : Effect.fail("not listening yet")))),
          Effect.retry({ times: 250, schedule: Schedule.spaced(Duration.millis(20)) }),
        )

        yield* withStore(store(one), (first) =>
          withStore(store(two), (second) =>
            Effect.gen(function*() {
              expect(yield* first.create({ cwd: "/one", id })).toBe(id)
              expect(yield* second.create({ cwd: "/two", id })).toBe(id)
              // Both held at once: written concurrently, schema two's commit first.
              yield* Effect.all([second.append(id, turn("in two")), first.append(id, turn("in one"))])
              yield* Effect.all([second.flush(id), first.flush(id)], { concurrency: "unbounded" })
              yield* Deferred.await(writtenInOne)
            })))
        expect(heard.filter((payload) => payload !== "ready")).toStrictEqual([id])
        expect(
          yield* Effect.all([
            admin(`SELECT cwd::text AS cwd, last_seq, first_message FROM ${one}.sessions`),
            admin(`SELECT cwd::text AS cwd, last_seq, first_message FROM ${two}.sessions`),
          ]),
        ).toStrictEqual([
          [{ cwd: '"/one"', last_seq: 2, first_message: "in one" }],
          [{ cwd: '"/two"', last_seq: 2, first_message: "in two" }],
        ])
      })).pipe(Effect.ensuring(Effect.promise(() => Promise.all([dropSchema(one), dropSchema(two)]))))
    }))

  it.live("a role that may only read can take no lease, and its advisory locks do not keep the writer out", () =>
    Effect.suspend(() => {
      const schema = freshSchema()
      const role = `${schema}_reader`
      const url = new URL(TEST_DATABASE_URL)
      url.username = role
      url.password = ""
      return Effect.gen(function*() {
        const id = yield* withStore(store(schema), (writer) =>
          Effect.gen(function*() {
            const id = yield* writer.create({ cwd: "/p" })
            yield* writer.append(id, turn("first"))
            return id
          }))
        yield* admin(`CREATE ROLE ${role} LOGIN`)
        yield* admin(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`)
        yield* admin(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${role}`)
        yield* withStore(store(schema, url.toString()), (reader) =>
          Effect.gen(function*() {
            // It reads and lists...
            expect((yield* reader.read(id)).events.map((e) => e.seq)).toStrictEqual([1, 2])
            expect((yield* reader.list()).sessions.map((s) => s.id)).toStrictEqual([id])
            // ...but cannot take the lease: the table refuses it.
            const refused = yield* Effect.flip(reader.open(id))
            expect(refused._tag).toBe("StoreIOError")
            expect(refused.message).toMatch(/take the lease in .*permission denied for table leases/)
          }))
        // Holding every advisory lock a writer once used (by the session id, or the schema and id) keeps nobody out.
        yield* Effect.scoped(Effect.gen(function*() {
          const sql = yield* PgClient.make({ url: Redacted.make(url.toString()), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
          const connection = yield* sql.reserve
          yield* connection.execute(
            "SELECT pg_advisory_lock(hashtextextended($1, 0)), pg_advisory_lock(hashtextextended($2, 0))",
            [id, `${schema}.${id}`],
            undefined,
          )
          yield* withStore(store(schema), (writer) =>
            Effect.gen(function*() {
              const opened = yield* writer.open(id)
              yield* writer.append(id, stamped(opened.events.length + 1, [userMessage("after")]))
              yield* writer.flush(id)
            }))
        }))
        expect(yield* admin<{ readonly seq: number }>(`SELECT seq FROM ${schema}.events ORDER BY seq`)).toStrictEqual([
          { seq: 1 },
          { seq: 2 },
          { seq: 3 },
          { seq: 4 },
        ])
      }).pipe(
        Effect.ensuring(Effect.promise(() => dropSchema(schema))),
        Effect.ensuring(Effect.ignore(admin(`DROP ROLE IF EXISTS ${role}`))),
      )
    }))

  it.live("a search_path naming a schema that does not exist: created when the role may, else one sentence naming it", () =>
    Effect.suspend(() => {
      const schema = freshSchema()
      const role = `${schema}_guest`
      const withPath = (user?: string) => {
        const url = new URL(TEST_DATABASE_URL)
        if (user !== undefined) url.username = user
        url.searchParams.set("options", `-c search_path=${schema}`)
        return url
      }
      return Effect.gen(function*() {
        // A role without CREATE on the database cannot make it: one sentence, and nothing is made.
        yield* admin(`CREATE ROLE ${role} LOGIN`)
        const guest = withPath(role)
        const refused = yield* Effect.flip(withStore({ store: Postgres.layerPostgres({ url: guest.toString() }) }, (store) => store.list()))
        const shown = new URL(guest)
        shown.search = ""
        expect(refused.message).toBe(
          `prepare the schema in ${shown.toString()}: schema "${schema}" does not exist and role ${role} may not create it: create it, or name an existing schema`,
        )
        expect(yield* admin(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1`, [schema])).toStrictEqual([{ n: 0 }])

        // A role that may create it does, and the store works in it.
        const url = withPath()
        const id = yield* withStore({ store: Postgres.layerPostgres({ url: url.toString() }) }, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/p" })
            yield* store.append(id, turn("in a new schema"))
            return id
          }))
        expect(yield* admin(`SELECT id, last_seq FROM ${schema}.sessions`)).toStrictEqual([{ id, last_seq: 2 }])
        expect(yield* admin(`SELECT version FROM ${schema}.turnlog_schema`)).toStrictEqual([{ version: 2 }])
      }).pipe(
        Effect.ensuring(Effect.promise(() => dropSchema(schema))),
        Effect.ensuring(Effect.ignore(admin(`DROP ROLE IF EXISTS ${role}`))),
      )
    }))
})
