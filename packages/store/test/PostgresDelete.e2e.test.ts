// `delete` on PostgreSQL: the shared cases, and the rows themselves gone in one statement.
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { withStore } from "./support/conformance.js"
import { deletion } from "./support/deletion.js"
import { stamped, userMessage } from "./support/fixtures.js"
import { admin, describePostgres, pgHarness } from "./support/postgres.js"

describePostgres("postgres", () => {
  deletion("postgres", () => pgHarness())

  it.effect("the session's row and every event row are gone; the other session's rows stay", () =>
    Effect.suspend(() => {
      const h = pgHarness()
      return Effect.gen(function*() {
        const [gone, kept] = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const ids = [yield* store.create({ cwd: "/a" }), yield* store.create({ cwd: "/b" })] as const
            for (const id of ids) yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi")]))
            return ids
          }))
        yield* withStore(h, (store) => store.delete(gone))
        expect(yield* admin(`SELECT id FROM ${h.schema}.sessions`)).toStrictEqual([{ id: kept }])
        expect(yield* admin(`SELECT DISTINCT session_id FROM ${h.schema}.events`)).toStrictEqual([{ session_id: kept }])
      }).pipe(Effect.ensuring(Effect.promise(async () => h.cleanup?.())))
    }))

  it.effect("a session row deleted by hand takes its events with it; an event of no session is refused", () =>
    Effect.suspend(() => {
      const h = pgHarness()
      return Effect.gen(function*() {
        const id = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/a" })
            yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi")]))
            return id
          }))
        yield* admin(`DELETE FROM ${h.schema}.sessions WHERE id = $1`, [id])
        expect(yield* admin(`SELECT count(*)::int AS n FROM ${h.schema}.events`)).toStrictEqual([{ n: 0 }])
        const orphan = yield* Effect.flip(admin(`INSERT INTO ${h.schema}.events VALUES ('nobody', 1, 'turn/start', 't', '{}')`))
        expect(String((orphan.cause as Error).message)).toMatch(/violates foreign key constraint "events_session_fk"/)
      }).pipe(Effect.ensuring(Effect.promise(async () => h.cleanup?.())))
    }))

  it.effect("a version 1 schema is brought to version 2 keeping every row, an event of no session included", () =>
    Effect.suspend(() => {
      const h = pgHarness()
      return Effect.gen(function*() {
        const id = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/a" })
            yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi")]))
            return id
          }))
        // What version 1 was: no leases table, no foreign key; and a row trimmed by hand left behind.
        yield* admin(`DROP TABLE ${h.schema}.leases`)
        yield* admin(`ALTER TABLE ${h.schema}.events DROP CONSTRAINT events_session_fk`)
        yield* admin(`UPDATE ${h.schema}.turnlog_schema SET version = 1`)
        yield* admin(`INSERT INTO ${h.schema}.events VALUES ('trimmed', 7, 'turn/end', 't', '{}')`)
        const opened = yield* withStore(h, (store) => store.open(id))
        expect(opened.events.map((e) => e.seq)).toStrictEqual([1, 2, 3])
        expect(yield* admin(`SELECT version FROM ${h.schema}.turnlog_schema`)).toStrictEqual([{ version: 2 }])
        expect(yield* admin(`SELECT session_id, seq FROM ${h.schema}.events WHERE session_id = 'trimmed'`)).toStrictEqual([
          { session_id: "trimmed", seq: 7 },
        ])
      }).pipe(Effect.ensuring(Effect.promise(async () => h.cleanup?.())))
    }))
})
