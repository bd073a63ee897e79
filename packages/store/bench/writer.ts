/**
 * One writer process of the store benchmark's many-writer workload (see
 * `writers.ts`): `writer.ts store|floor <url> <schema> <events>`. It gets
 * ready (the store built and its session created, or the bare client
 * connected), says `ready`, waits for `go` on stdin, appends its events in
 * batches of 50 — through the store with a flush after each, or as the
 * floor's bare multi-row INSERT per batch — and says `done <ms> <cpu ms>`
 * (the process's user and system CPU time while appending).
 */
import { createInterface } from "node:readline"
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Redacted, type Scope } from "effect"
import { layerPostgres } from "../src/Postgres.js"
import { SessionStore } from "../src/SessionStore.js"
import { BATCH, batches, chunkEvent } from "./harness.js"

const [mode, url, schema, count] = process.argv.slice(2)
const events = Array.from({ length: Number(count) }, (_, i) => chunkEvent(i + 1))
const lines = createInterface({ input: process.stdin })
const go = new Promise<void>((resolve) => lines.on("line", (line) => line === "go" && resolve()))
const say = (line: string) => process.stdout.write(`${line}\n`)
const spent = ([at, cpu]: readonly [number, NodeJS.CpuUsage]) => {
  const used = process.cpuUsage(cpu)
  return `${(performance.now() - at).toFixed(1)} ${((used.user + used.system) / 1000).toFixed(1)}`
}

const store = Effect.gen(function*() {
  const context = yield* Layer.build(layerPostgres({ url: url!, schema: schema! }))
  const sessions = Context.get(context, SessionStore)
  const id = yield* sessions.create({ cwd: "/bench" })
  say("ready")
  yield* Effect.promise(() => go)
  const started = [performance.now(), process.cpuUsage()] as const
  for (const batch of batches(events)) {
    yield* sessions.append(id, batch)
    yield* sessions.flush(id)
  }
  return spent(started)
})

const floor = Effect.gen(function*() {
  const sql = yield* PgClient.make({ url: Redacted.make(url!), connectTimeout: Duration.seconds(10), maxConnections: 1 }).pipe(
    Effect.provide(Reactivity.layer),
  )
  yield* sql`SELECT 1`
  const id = `floor-${process.pid}`
  const values = Array.from({ length: BATCH }, (_, i) => `($${i * 5 + 1}, $${i * 5 + 2}, $${i * 5 + 3}, $${i * 5 + 4}, $${i * 5 + 5})`)
  say("ready")
  yield* Effect.promise(() => go)
  const started = [performance.now(), process.cpuUsage()] as const
  for (const batch of batches(events)) {
    const params = batch.flatMap((e) => [id, e.seq, e.type, e.time, JSON.stringify(e.data)])
    yield* sql.unsafe(`INSERT INTO ${schema}.floor VALUES ${values.slice(0, batch.length).join(", ")}`, params)
  }
  return spent(started)
})

const work: Effect.Effect<string, unknown, Scope.Scope> = mode === "store" ? store : floor
say(`done ${await Effect.runPromise(Effect.scoped(work))}`)
lines.close()
process.exit(0)
