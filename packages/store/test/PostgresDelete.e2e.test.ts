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
})
