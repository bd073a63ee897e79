/**
 * Store benchmark, for the JSONL layer and the SQLite layer:
 * - append: 100,000 `assistant/chunk` events of about 1 KB (about 100 MB),
 *   appended in batches of 50 with a `flush` (write + fsync) after each batch,
 *   as the agent loop does while a response streams; events/s. Beside it, the
 *   floor measured in the same run, alternating with the store over
 *   3 rounds (medians shown; the disk is the noisy part):
 *   for JSONL the same lines written to a plain file with `fs.writeSync` +
 *   `fdatasync` every 50 events; for SQLite the same rows inserted with
 *   better-sqlite3 directly, same pragmas (WAL, synchronous=FULL), one
 *   transaction per 50.
 * - cold load: `read` of that session through a freshly built layer (nothing
 *   cached in the store; the file is in the OS page cache, like a session
 *   reopened on a warm machine), every line or row decoded and validated
 *   through the protocol schemas. Beside it, an in-run reference that reads the
 *   same file (or rows) and `JSON.parse`s each line (or `data`) without any
 *   validation. The two alternate, with a collection between runs; figures are
 *   medians of the rounds; the ratio is store / reference.
 * Targets: append ≥ 50,000 events/s; load ratio ≤ 1.5.
 *
 * Run: `npm run bench store` or `node --expose-gc --import tsx packages/store/bench/store.bench.ts`.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { layerJsonl } from "../src/Jsonl.js"
import { type Service, SessionStore } from "../src/SessionStore.js"
import { layerSqlite } from "../src/Sqlite.js"
import type { StoreError } from "../src/StoreError.js"

const EVENTS = 100_000
const BATCH = 50
const ROUNDS = 5
const APPEND_ROUNDS = 3

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const words = ["the", "parser", "streams", "tokens", "\"quoted\"", "naïve", "→", "line\nbreak", "{json}", "tab\there"]
const chunkEvent = (seq: number): SessionLog.SessionEvent => {
  let text = ""
  for (let i = 0; text.length < 900; i++) text += words[(seq * 7 + i) % words.length] + " "
  return {
    seq,
    time: new Date(1_750_000_000_000 + seq).toISOString(),
    type: "assistant/chunk",
    data: { chunk: { type: "text-delta", index: 0, text } },
  }
}

const withStore = <A>(layer: Layer.Layer<SessionStore, StoreError>, f: (store: Service) => Effect.Effect<A, StoreError>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(Layer.build(layer), (ctx) => f(Context.get(ctx, SessionStore)))))

const appendAll = (layer: Layer.Layer<SessionStore, StoreError>, events: ReadonlyArray<SessionLog.SessionEvent>) =>
  withStore(layer, (store) =>
    Effect.gen(function*() {
      const id = yield* store.create({ cwd: "/bench" })
      const started = performance.now()
      for (let i = 0; i < events.length; i += BATCH) {
        yield* store.append(id, events.slice(i, i + BATCH))
        yield* store.flush(id)
      }
      return { id, ms: performance.now() - started }
    }))

const referenceAppend = (file: string, events: ReadonlyArray<SessionLog.SessionEvent>) => {
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

const referenceJsonl = (file: string) => {
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

const referenceSqliteAppend = (file: string, events: ReadonlyArray<SessionLog.SessionEvent>) => {
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

const referenceSqlite = (file: string, id: string) => {
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

const timeIt = async (f: () => unknown): Promise<number> => {
  gc()
  const started = performance.now()
  await f()
  return performance.now() - started
}

const run = async (
  name: string,
  layer: Layer.Layer<SessionStore, StoreError>,
  /** Bytes a load reads: the log file, or for SQLite the event JSON of the session. */
  sizeOf: (id: SessionId, events: ReadonlyArray<SessionLog.SessionEvent>) => number,
  appendFloor: (events: ReadonlyArray<SessionLog.SessionEvent>) => number,
  reference: (id: SessionId) => number,
) => {
  const events = Array.from({ length: EVENTS }, (_, i) => chunkEvent(i + 1))
  const floors: Array<number> = []
  const appends: Array<number> = []
  let id: SessionId | undefined
  for (let round = 0; round < APPEND_ROUNDS; round++) {
    gc()
    floors.push(appendFloor(events))
    gc()
    const appended = await appendAll(layer, events)
    appends.push(appended.ms)
    id = appended.id
  }
  const ms = median(appends)
  const floor = median(floors)
  if (id === undefined) throw new Error("nothing appended")
  const bytes = sizeOf(id, events)
  const rate = (t: number) => Math.round(EVENTS / (t / 1000))
  console.log(
    `${name} append: ${EVENTS} events, flush every ${BATCH}: ${ms.toFixed(0)} ms, ${rate(ms)} events/s (target ≥ 50000); ` +
      `floor ${floor.toFixed(0)} ms, ${rate(floor)} events/s; ratio ${(ms / floor).toFixed(2)}`,
  )
  console.log(`${name}   rounds (ms) store [${appends.map((x) => x.toFixed(0)).join(", ")}] floor [${floors.map((x) => x.toFixed(0)).join(", ")}]`)

  const loadId = id
  const load = () =>
    withStore(layer, (store) =>
      Effect.map(store.read(loadId), (loaded) => {
        if (loaded.events.length !== EVENTS) throw new Error(`loaded ${loaded.events.length} events`)
        return loaded.events.length
      })
    )
  if (reference(loadId) !== EVENTS) throw new Error("the reference read a different number of events")
  await load()
  const ours: Array<number> = []
  const refs: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    refs.push(await timeIt(() => reference(loadId)))
    ours.push(await timeIt(load))
  }
  const mb = bytes / 1e6
  const store = median(ours)
  const ref = median(refs)
  console.log(
    `${name} cold load: ${EVENTS} events, ${mb.toFixed(1)} MB: ${store.toFixed(0)} ms (${(mb / (store / 1000)).toFixed(0)} MB/s); ` +
      `reference ${ref.toFixed(0)} ms (${(mb / (ref / 1000)).toFixed(0)} MB/s); ratio ${(store / ref).toFixed(2)} (target ≤ 1.5)`,
  )
  console.log(`${name}   rounds (ms) store [${ours.map((x) => x.toFixed(0)).join(", ")}] reference [${refs.map((x) => x.toFixed(0)).join(", ")}]`)
}

const home = mkdtempSync(join(tmpdir(), "turnlog-bench-"))
try {
  await run(
    "jsonl",
    layerJsonl({ home }),
    (id) => statSync(join(home, "sessions", `${id}.jsonl`)).size,
    (events) => referenceAppend(join(home, "reference.jsonl"), events),
    (id) => referenceJsonl(join(home, "sessions", `${id}.jsonl`)),
  )
  await run(
    "sqlite",
    layerSqlite({ home }),
    (_id, events) => events.reduce((n, event) => n + Buffer.byteLength(JSON.stringify(event)) + 1, 0),
    (events) => referenceSqliteAppend(join(home, "reference.db"), events),
    (id) => referenceSqlite(join(home, "sessions.db"), id),
  )
} finally {
  rmSync(home, { recursive: true, force: true })
}
