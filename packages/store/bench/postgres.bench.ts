/**
 * PostgreSQL store benchmark, against the server in TURNLOG_BENCH_DATABASE_URL
 * (default postgres://postgres@127.0.0.1:5432/postgres), in a schema of its own
 * dropped after:
 * - append: 100,000 `assistant/chunk` events of about 1 KB appended in batches
 *   of 50 with a `flush` after each (one compare-and-set + insert statement,
 *   committed), as the agent loop does while a response streams; events/s.
 * - cold load: `read` of that session through a freshly built layer, every row
 *   decoded and validated through the protocol schemas, beside an in-run
 *   reference: one bare query of the same rows through the same driver and a
 *   `JSON.parse` of each `data`. The two alternate over 5 rounds; medians; the
 *   ratio is store / reference (target ≤ 1.3).
 * - lease takeover: a process holding a 10-event session is SIGKILLed; the time from the
 *   kill until another store's `open` succeeds (it tries every 5 ms).
 *
 * Run: `npm run bench postgres` or `node --expose-gc --import tsx packages/store/bench/postgres.bench.ts`.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Redacted } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { layerPostgres } from "../src/Postgres.js"
import { type Service, SessionStore } from "../src/SessionStore.js"
import type { StoreError } from "../src/StoreError.js"
import { spawnChild } from "../test/support/spawn.js"

const URL_ = process.env.TURNLOG_BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const SCHEMA = `turnlog_bench_${process.pid}`
const EVENTS = 100_000
const BATCH = 50
const ROUNDS = 5

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const words = ["the", "parser", "streams", "tokens", "\"quoted\"", "naïve", "→", "line\nbreak", "{json}", "tab\there"]
const chunkEvent = (seq: number): SessionLog.SessionEvent => {
  let text = ""
  for (let i = 0; text.length < 900; i++) text += words[(seq * 3 + i) % words.length] + " "
  return {
    seq,
    time: new Date(1_750_000_000_000 + seq).toISOString(),
    type: "assistant/chunk",
    data: { chunk: { type: "text-delta", index: 0, text } },
  }
}

const layer = layerPostgres({ url: URL_, schema: SCHEMA })
const withStore = <A>(f: (store: Service) => Effect.Effect<A, StoreError>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(Layer.build(layer), (ctx) => f(Context.get(ctx, SessionStore)))))

const withSql = <A>(f: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(
    PgClient.make({ url: Redacted.make(URL_), connectTimeout: Duration.seconds(5) }).pipe(Effect.provide(Reactivity.layer)),
    f,
  )))

const reference = (id: SessionId) =>
  withSql((sql) =>
    Effect.map(
      sql.unsafe<{ seq: number; time: string; type: string; data: string }>(
        `SELECT seq, "time", type, data::text AS data FROM ${SCHEMA}.events WHERE session_id = $1 ORDER BY seq`,
        [id],
      ),
      (rows) => rows.map((row) => ({ seq: row.seq, time: row.time, type: row.type, data: JSON.parse(row.data) as unknown })).length,
    )
  )

const timeIt = async (f: () => Promise<unknown>): Promise<number> => {
  gc()
  const started = performance.now()
  await f()
  return performance.now() - started
}

const main = async () => {
  const events = Array.from({ length: EVENTS }, (_, i) => chunkEvent(i + 1))
  const { id, ms } = await withStore((store) =>
    Effect.gen(function*() {
      const id = yield* store.create({ cwd: "/bench" })
      const started = performance.now()
      for (let i = 0; i < events.length; i += BATCH) {
        yield* store.append(id, events.slice(i, i + BATCH))
        yield* store.flush(id)
      }
      return { id, ms: performance.now() - started }
    }))
  console.log(`PostgreSQL append, ${EVENTS} events, flush every ${BATCH}: ${Math.round(EVENTS / (ms / 1000))} events/s`)

  const store: Array<number> = []
  const bare: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    store.push(await timeIt(() => withStore((s) => Effect.map(s.read(id), (loaded) => loaded.events.length))))
    bare.push(await timeIt(() => reference(id)))
  }
  const [s, b] = [median(store), median(bare)]
  console.log(
    `PostgreSQL cold load, ${EVENTS} events: ${s.toFixed(0)} ms; bare query + JSON.parse: ${b.toFixed(0)} ms; ratio ${(s / b).toFixed(2)} (target ≤ 1.3)`,
  )

  // A small session: the open after the takeover loads it, and only the takeover is measured.
  const small = await withStore((store) =>
    Effect.gen(function*() {
      const small = yield* store.create({ cwd: "/bench" })
      yield* store.append(small, events.slice(0, 10))
      return small
    }))
  const holder = spawnChild(["hold", "postgres", SCHEMA, small])
  await holder.waitFor((line) => line === "held")
  const killed = performance.now()
  holder.process.kill("SIGKILL")
  const takeover = await withStore((store) =>
    Effect.gen(function*() {
      for (;;) {
        const attempt = yield* Effect.either(store.open(small))
        if (attempt._tag === "Right") return performance.now() - killed
        if (attempt.left._tag !== "SessionLocked") return yield* attempt.left
        yield* Effect.sleep(5)
      }
    }))
  await holder.kill()
  console.log(`PostgreSQL lease takeover after SIGKILL: ${takeover.toFixed(0)} ms (the open of a 10-event session included)`)
}

main()
  .finally(() => withSql((sql) => sql.unsafe(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`)))
  .catch((error) => {
    console.error(`postgres bench failed: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  })
