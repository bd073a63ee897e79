// The PostgreSQL load reads pages of seq ranges, asking for the next page before the
// current one is decoded: a session across several pages loads whole and in
// order, and a damaged row or a missing one — in the first page while the next
// is in flight, or at a page boundary — is refused naming its seq, never skipped.
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SessionId } from "@turnlog/protocol"
import * as Postgres from "../src/Postgres.js"
import { type Harness, withStore } from "./support/conformance.js"
import { chunkEvent } from "./support/fixtures.js"
import { admin, describePostgres, dropSchema, freshSchema, TEST_DATABASE_URL } from "./support/postgres.js"

/** Past two pages of the load (5000 rows each). */
const EVENTS = 12_345
const events = Array.from({ length: EVENTS }, (_, i) => chunkEvent(i + 1))

const withSession = <A, E>(f: (h: Harness, schema: string, id: SessionId, where: string) => Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    const schema = freshSchema()
    const h: Harness = { store: Postgres.layerPostgres({ url: TEST_DATABASE_URL, schema }) }
    return withStore(h, (store) =>
      Effect.gen(function*() {
        const id = yield* store.create({ cwd: "/p" })
        for (let i = 0; i < EVENTS; i += 1000) {
          yield* store.append(id, events.slice(i, i + 1000))
          yield* store.flush(id)
        }
        return id
      })).pipe(
        Effect.flatMap((id) => f(h, schema, id, `${TEST_DATABASE_URL} (schema ${schema})`)),
        Effect.ensuring(Effect.promise(() => dropSchema(schema))),
      )
  })

const refusal = (h: Harness, id: SessionId) =>
  withStore(h, (store) => Effect.flip(store.read(id))).pipe(Effect.map((e) => ({ tag: e._tag, message: e.message })))

describePostgres("postgres: a session across pages", () => {
  it.effect("loads every event in order, exactly as written", () =>
    withSession((h, _schema, id) =>
      Effect.gen(function*() {
        const loaded = yield* withStore(h, (store) => store.read(id))
        expect(loaded.events.length).toBe(EVENTS)
        expect(JSON.stringify(loaded.events)).toBe(JSON.stringify(events))
      })
    ), 300_000)

  it.effect("a damaged row in the first page is refused while the next page is in flight", () =>
    withSession((h, schema, id, where) =>
      Effect.gen(function*() {
        yield* admin(`UPDATE ${schema}.events SET data = '{"chunk":{"type":"text-delta"}}' WHERE seq = 17`)
        expect(yield* refusal(h, id)).toStrictEqual({
          tag: "SessionCorrupt",
          message: `${where}: session ${id}, event 17: not a valid assistant/chunk event: data.chunk.index: is missing`,
        })
      })
    ), 300_000)

  it.effect("a row missing at a page boundary is refused naming the seq expected", () =>
    withSession((h, schema, id, where) =>
      Effect.gen(function*() {
        yield* admin(`DELETE FROM ${schema}.events WHERE seq = 5001`)
        expect(yield* refusal(h, id)).toStrictEqual({
          tag: "SessionCorrupt",
          message: `${where}: session ${id}, event 5002: expected event seq 5001, found 5002`,
        })
      })
    ), 300_000)
})

describePostgres("postgres: rows outside the recorded session", () => {
  it.effect("a row past the recorded end, and one with seq 0, are met and refused", () =>
    withSession((h, schema, id, where) =>
      Effect.gen(function*() {
        yield* admin(`INSERT INTO ${schema}.events SELECT session_id, ${EVENTS + 1}, type, "time", data FROM ${schema}.events WHERE seq = 1`)
        expect(yield* refusal(h, id)).toStrictEqual({
          tag: "SessionCorrupt",
          message: `${where}: session ${id}, event ${EVENTS + 1}: the session records ${EVENTS} events, ${EVENTS + 1} are stored`,
        })
        yield* admin(`INSERT INTO ${schema}.events SELECT session_id, 0, type, "time", data FROM ${schema}.events WHERE seq = 1`)
        expect(yield* refusal(h, id)).toStrictEqual({
          tag: "SessionCorrupt",
          message: `${where}: session ${id}, event 0: expected event seq 1, found 0`,
        })
      })
    ), 300_000)
})
