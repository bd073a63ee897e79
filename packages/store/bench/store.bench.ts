/**
 * Store benchmark: the JSONL, SQLite and PostgreSQL layers in one run, through
 * one harness (see `harness.ts`: append with a flush per 50, cold load against
 * an in-run reference, lease takeover after SIGKILL of a holder process).
 * The floors and references, per engine:
 * - JSONL: the same lines written to a plain file with `fs.writeSync` +
 *   `fdatasync` every 50 events; the load reference reads the file and
 *   `JSON.parse`s each line.
 * - SQLite: the same rows inserted with better-sqlite3 directly, same pragmas
 *   (WAL, synchronous=FULL), one transaction per 50; the load reference
 *   selects the rows and `JSON.parse`s each `data`.
 * - PostgreSQL (the server in TURNLOG_BENCH_DATABASE_URL, default
 *   postgres://postgres@127.0.0.1:5432/postgres, in a schema of its own dropped
 *   after; skipped with one line when no server answers): the same rows
 *   inserted through the same driver, one autocommitted multi-row INSERT per
 *   50; the load reference is one bare query of the same rows through the same
 *   driver and a `JSON.parse` of each `data`.
 * - PostgreSQL, many writers (see `writers.ts`): 8 processes appending
 *   through the store at once, beside 8 processes sending the floor's bare
 *   INSERTs; goal: a ratio ≥ 0.5.
 * Targets: append ≥ 50,000 events/s for the files, ≥ 20,000 for PostgreSQL;
 * load ratio ≤ 1.5 for the files, ≤ 1.3 for PostgreSQL. Figures measured on a
 * machine under shared load are indicative; compare the in-run ratios.
 *
 * Run: `npm run bench store` or `node --expose-gc --import tsx packages/store/bench/store.bench.ts`.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Redacted } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { layerJsonl } from "../src/Jsonl.js"
import { layerPostgres } from "../src/Postgres.js"
import { layerSqlite } from "../src/Sqlite.js"
import { BATCH, batches, run } from "./harness.js"
import { many } from "./writers.js"

const referenceAppend = async (file: string, events: ReadonlyArray<SessionLog.SessionEvent>) => {
  const fd = openSync(file, "w")
  const started = performance.now()
  for (let i = 0; i < events.length; i += BATCH) {
    let text = ""
    for (const event of events.slice(i, i + BATCH)) text += JSON.stringify(event) + "\n"
    writeSync(fd, text)
    fdatasyncSync(fd)
  }
  const ms = performance.now() - started
  closeSync(fd)
  rmSync(file)
  return ms
}

const referenceJsonl = async (file: string) => {
  const out: Array<unknown> = []
  for (const line of readFileSync(file, "utf8").split("\n")) if (line.length > 0) out.push(JSON.parse(line))
  return out.length - 1
}

interface SqliteDatabase {
  prepare(sql: string): {
    all(...params: Array<unknown>): Array<{ seq: number; time: string; type: string; data: string }>
    run(...params: Array<unknown>): unknown
  }
  pragma(pragma: string): unknown
  exec(sql: string): unknown
  transaction<A>(f: (a: A) => void): (a: A) => void
  close(): void
}
const Database = createRequire(import.meta.url)("better-sqlite3") as new(file: string) => SqliteDatabase

const referenceSqliteAppend = async (file: string, events: ReadonlyArray<SessionLog.SessionEvent>) => {
  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = FULL")
  db.exec("CREATE TABLE events (session_id TEXT, seq INTEGER, type TEXT, time TEXT, data TEXT, PRIMARY KEY (session_id, seq))")
  const insert = db.prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?)")
  const batch = db.transaction((slice: ReadonlyArray<SessionLog.SessionEvent>) => {
    for (const e of slice) insert.run("s", e.seq, e.type, e.time, JSON.stringify(e.data))
  })
  const started = performance.now()
  for (let i = 0; i < events.length; i += BATCH) batch(events.slice(i, i + BATCH))
  const ms = performance.now() - started
  db.close()
  for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true })
  return ms
}

const referenceSqlite = async (file: string, id: string) => {
  const db = new Database(file)
  try {
    const rows = db.prepare("SELECT seq, time, type, data FROM events WHERE session_id = ? ORDER BY seq").all(id)
    const out: Array<unknown> = []
    for (const row of rows) out.push({ seq: row.seq, time: row.time, type: row.type, data: JSON.parse(row.data) })
    return out.length
  } finally {
    db.close()
  }
}

const PG_URL = process.env.TURNLOG_BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const SCHEMA = `turnlog_bench_${process.pid}`

const withSql = <A>(f: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(
    PgClient.make({ url: Redacted.make(PG_URL), connectTimeout: Duration.seconds(5) }).pipe(Effect.provide(Reactivity.layer)),
    f,
  )))

const referencePgAppend = (events: ReadonlyArray<SessionLog.SessionEvent>) =>
  withSql((sql) =>
    Effect.gen(function*() {
      yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${SCHEMA}.floor (
        session_id text, seq int4, type text, "time" text, data json, PRIMARY KEY (session_id, seq))`)
      yield* sql.unsafe(`TRUNCATE ${SCHEMA}.floor`)
      const values = Array.from({ length: BATCH }, (_, i) => `($${i * 5 + 1}, $${i * 5 + 2}, $${i * 5 + 3}, $${i * 5 + 4}, $${i * 5 + 5})`)
      const started = performance.now()
      for (const batch of batches(events)) {
        const params = batch.flatMap((e) => ["s", e.seq, e.type, e.time, JSON.stringify(e.data)])
        yield* sql.unsafe(`INSERT INTO ${SCHEMA}.floor VALUES ${values.slice(0, batch.length).join(", ")}`, params)
      }
      return performance.now() - started
    })
  )

const referencePg = (id: SessionId) =>
  withSql((sql) =>
    Effect.map(
      sql.unsafe<{ seq: number; time: string; type: string; data: string }>(
        `SELECT seq, "time", type, data::text AS data FROM ${SCHEMA}.events WHERE session_id = $1 ORDER BY seq`,
        [id],
      ),
      (rows) => rows.map((row) => ({ seq: row.seq, time: row.time, type: row.type, data: JSON.parse(row.data) as unknown })).length,
    )
  )

const eventBytes = (events: ReadonlyArray<SessionLog.SessionEvent>) => events.reduce((n, event) => n + Buffer.byteLength(JSON.stringify(event)) + 1, 0)

/** `TURNLOG_BENCH_STORES=postgres` (a comma-separated list) measures only those stores; `postgres-writers`: the many-writer workload alone. */
const chosen = (name: string) => (process.env.TURNLOG_BENCH_STORES ?? name).split(",").includes(name)

console.log("(absolute figures move with the machine and are indicative only on a shared one; compare the in-run ratios)")
const home = mkdtempSync(join(tmpdir(), "turnlog-bench-"))
let failed = false
try {
  if (chosen("jsonl"))
    await run({
      name: "jsonl",
      layer: layerJsonl({ home }),
      floorIs: "writeSync + fdatasync",
      appendFloor: (events) => referenceAppend(join(home, "reference.jsonl"), events),
      referenceIs: "read + JSON.parse per line",
      reference: (id) => referenceJsonl(join(home, "sessions", `${id}.jsonl`)),
      bytes: (id) => statSync(join(home, "sessions", `${id}.jsonl`)).size,
      holder: ["jsonl", home],
      targets: { append: 50_000, load: 1.5 },
    })
  if (chosen("sqlite"))
    await run({
      name: "sqlite",
      layer: layerSqlite({ home }),
      floorIs: "better-sqlite3, a transaction per 50",
      appendFloor: (events) => referenceSqliteAppend(join(home, "reference.db"), events),
      referenceIs: "better-sqlite3 select + JSON.parse",
      reference: (id) => referenceSqlite(join(home, "sessions.db"), id),
      bytes: (_id, events) => eventBytes(events),
      holder: ["sqlite", home],
      targets: { append: 50_000, load: 1.5 },
    })
  const postgres = chosen("postgres") || chosen("postgres-writers")
  const unreachable = postgres
    ? await withSql((sql) => sql`SELECT 1`).then(() => undefined, (e: unknown) => String(e))
    : undefined
  if (!postgres) {
    // Left out by TURNLOG_BENCH_STORES.
  } else if (unreachable !== undefined) {
    console.log(`postgres: skipped, no server at ${PG_URL} (${unreachable})`)
  } else {
    try {
      await withSql((sql) => sql.unsafe(`CREATE SCHEMA ${SCHEMA}`))
      if (chosen("postgres"))
        await run({
          name: "postgres",
          layer: layerPostgres({ url: PG_URL, schema: SCHEMA }),
          floorIs: "the driver's multi-row INSERT per 50",
          appendFloor: referencePgAppend,
          referenceIs: "one bare pg query + JSON.parse",
          reference: referencePg,
          bytes: (_id, events) => eventBytes(events),
          holder: ["postgres", SCHEMA],
          targets: { append: 20_000, load: 1.3 },
        })
      if (chosen("postgres-writers"))
        await many(PG_URL, SCHEMA, () =>
          withSql((sql) =>
            Effect.zipRight(
              sql.unsafe(`CREATE TABLE IF NOT EXISTS ${SCHEMA}.floor (
              session_id text, seq int4, type text, "time" text, data json, PRIMARY KEY (session_id, seq))`),
              sql.unsafe(`TRUNCATE ${SCHEMA}.floor`),
            )
          ))
    } finally {
      await withSql((sql) => sql.unsafe(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`))
    }
  }
} catch (error) {
  console.error(`store bench failed: ${error instanceof Error ? error.message : String(error)}`)
  failed = true
} finally {
  rmSync(home, { recursive: true, force: true })
}
if (failed) process.exit(1)
