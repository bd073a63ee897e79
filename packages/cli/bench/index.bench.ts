/**
 * Index benchmark: what choosing, listing and opening a session cost as the
 * session and the home grow, measured on the real `turnlog` binary as a
 * subprocess. Each pair of figures alternates over ROUNDS rounds in one run
 * (medians shown); the ratio is the large case over the small one.
 * - continue: `run --continue` time to first request (from spawning the
 *   process until the loopback provider has the request), on a session of
 *   5,000 long turns (100 text deltas each) / one of 100. Target ≤ 1.5.
 * - log version: `run --continue` on the 5,000-turn session as version 4
 *   writes it (each message referring to the text its request streamed) / the
 *   same turns in a version-3 log (each text stored twice). Target ≤ 1.0 (no
 *   slower), within the noise of a shared machine.
 * - missing index: `run --continue` on the 5,000-turn session with `index/`
 *   deleted before each run / with the index up to date. The lookup reads the
 *   log once (open reuses what list read) and makes the entry again. Target ≤ 1.3.
 * - home: the same on a 10-turn session, the home also holding 1,000 other
 *   sessions of other directories (≈100 MB) / the session alone. Target ≤ 1.1.
 * - sessions: `turnlog sessions` (spawn to exit) with 1,000 sessions / with
 *   1, in the JSONL and the SQLite store. Target ≤ 1.3.
 * The homes are written through the store layers, from one turn the binary
 * wrote with the scripted model (a 300-word answer, 100 deltas), re-stamped.
 * One warm-up run per case first (the first writer of a home written by an
 * older build makes its index, as it would for a user).
 *
 * Run: `npm run bench -- index`.
 */
import { execFile, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Context, Effect, Either, Layer } from "effect"
import { makeMessageId, type SessionId, SessionLog } from "@turnlog/protocol"
import { LogFormat, SessionStore, StoreLayer } from "@turnlog/store"
import { Loopback } from "@turnlog/testkit"
import { PiAiScript } from "@turnlog/llm-pi-ai"

const ROUNDS = Number(process.env.ROUNDS ?? 5)
/** The long session's turns (5,000; smaller for a quick run). */
const LONG_TURNS = Number(process.env.LONG_TURNS ?? 5000)
const BIN = fileURLToPath(new URL("../bin/turnlog.js", import.meta.url))
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const dirs: Array<string> = []
const temp = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `turnlog-bench-${prefix}-`)))
  dirs.push(dir)
  return dir
}

const env = (home: string, extra: Record<string, string> = {}): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/_API_KEY$|^TURNLOG_/.test(key)) out[key] = value
  }
  return { ...out, TURNLOG_HOME: home, ...extra }
}

const turnlog = (args: ReadonlyArray<string>, cwd: string, vars: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: vars, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }),
    )
  })

/** One turn's events as the binary writes them: turn/start … turn/end, 100 text deltas. */
const template = async (): Promise<ReadonlyArray<SessionLog.SessionEvent>> => {
  const home = temp("template")
  const answer = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ")
  const script = join(home, "model.jsonl")
  writeFileSync(script, JSON.stringify(PiAiScript.response([{ type: "text", text: answer }], "stop", { route: "turnlog/scripted" })) + "\n")
  const ran = await turnlog(["run", "a long question about the session index"], home, env(home, { TURNLOG_SCRIPTED_MODEL: script }))
  if (ran.code !== 0) throw new Error(`the template run failed: ${ran.stderr}`)
  const [file] = readdirSync(join(home, "sessions")).filter((f) => f.endsWith(".jsonl"))
  const bytes = readFileSync(join(home, "sessions", file!))
  // Decoded as a store reads it: a message line's references to its request's text are resolved.
  const { events, header } = Either.getOrThrow(LogFormat.decode(bytes, file!))
  const deltas = SessionLog.chunksIn(events).filter((c) => c.type === "text-delta").length
  const headerBytes = Buffer.byteLength(LogFormat.encodeHeader(header))
  console.log(`template turn: ${events.length} events, ${deltas} text deltas, ${bytes.length - headerBytes} bytes (log version ${header.version})`)
  return events
}

/** `turns` copies of the template turn, stamped from seq 1, each with fresh message ids. */
const turnsOf = (turn: ReadonlyArray<SessionLog.SessionEvent>, from: number, count: number): Array<SessionLog.SessionEvent> => {
  const out: Array<SessionLog.SessionEvent> = []
  for (let t = 0; t < count; t++) {
    const ids = new Map<string, string>()
    for (const event of turn) {
      const text = JSON.stringify(event).replace(/"(msg_[^"]+)"/g, (_, id: string) => {
        if (!ids.has(id)) ids.set(id, makeMessageId())
        return `"${ids.get(id)}"`
      })
      out.push({ ...(JSON.parse(text) as SessionLog.SessionEvent), seq: from + out.length })
    }
  }
  return out
}

type AnyStore = Layer.Layer<SessionStore.SessionStore, unknown>

/** Writes sessions through a store: `[cwd, turns]` each, in log format `version`; returns their ids. */
const writeSessions = (
  layer: AnyStore,
  turn: ReadonlyArray<SessionLog.SessionEvent>,
  sessions: ReadonlyArray<readonly [string, number]>,
  version = SessionLog.LOG_VERSION,
) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const store = Context.get(yield* Layer.build(layer), SessionStore.SessionStore)
    const ids: Array<SessionId> = []
    for (const [cwd, turns] of sessions) {
      const id = yield* store.create({ cwd, version })
      for (let t = 0; t < turns; t += 50) {
        yield* store.append(id, turnsOf(turn, 1 + t * turn.length, Math.min(50, turns - t)))
        yield* store.flush(id)
      }
      yield* store.release(id)
      ids.push(id)
    }
    return ids
  })))

const server = await Loopback.start()
const configure = (home: string) =>
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      model: "local/small",
      providers: {
        local: {
          api: "anthropic-messages",
          baseUrl: server.baseUrl("anthropic-messages"),
          apiKeyEnv: "LOCAL_BENCH_KEY",
          // Room for the whole history: no compaction before the request.
          models: [{ id: "small", contextWindow: 1_000_000_000, maxTokens: 4096 }],
        },
      },
    }),
  )

/**
 * `run --continue` until the provider has the request, in ms; the run is then answered and awaited.
 * `--model`: a continued session keeps the route its last request used (the template's scripted one).
 */
const continueOnce = async (home: string, cwd: string): Promise<number> => {
  server.enqueue({ blocks: [{ type: "text", text: "Short answer." }] })
  const before = server.requests().length
  const start = performance.now()
  const child = spawn(process.execPath, [BIN, "run", "--continue", "--model", "local/small", "go on"], {
    cwd,
    env: env(home, { LOCAL_BENCH_KEY: "sk-bench-0123456789" }),
    stdio: ["ignore", "ignore", "pipe"],
  })
  let stderr = ""
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
  const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? -1)))
  const arrived = server.waitForRequests(before + 1).then(() => performance.now() - start)
  const first = await Promise.race([arrived, exited.then((code) => Promise.reject(new Error(`run --continue exited ${code}: ${stderr}`)))])
  const code = await exited
  if (code !== 0) throw new Error(`run --continue exited ${code}: ${stderr}`)
  return first
}

const sessionsOnce = async (home: string, store: "jsonl" | "sqlite"): Promise<number> => {
  const start = performance.now()
  const result = await turnlog(["--store", store, "sessions"], home, env(home))
  const ms = performance.now() - start
  if (result.code !== 0) throw new Error(`sessions exited ${result.code}: ${result.stderr}`)
  return ms
}

/** Runs both cases alternately; prints medians and the ratio. */
const pair = async (name: string, target: number, large: () => Promise<number>, small: () => Promise<number>) => {
  await large()
  await small()
  const a: Array<number> = []
  const b: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    a.push(await large())
    b.push(await small())
  }
  const ratio = median(a) / median(b)
  console.log(
    `${name}: ${median(a).toFixed(0)} ms / ${median(b).toFixed(0)} ms = ${ratio.toFixed(2)} (target ≤ ${target}) ` +
      `${ratio <= target ? "on target" : "OVER TARGET"}`,
  )
}

try {
  const turn = await template()
  const cwd = temp("cwd")
  const jsonl = (home: string): Layer.Layer<SessionStore.SessionStore, unknown> => StoreLayer.layer({ kind: "jsonl", home })
  const sqlite = (home: string): Layer.Layer<SessionStore.SessionStore, unknown> => StoreLayer.layer({ kind: "sqlite", home })

  // continue: 5,000 long turns / 100.
  const long = temp("long")
  const short = temp("short")
  console.log(`writing a ${LONG_TURNS}-turn and a 100-turn session…`)
  await writeSessions(jsonl(long), turn, [[cwd, LONG_TURNS]])
  await writeSessions(jsonl(short), turn, [[cwd, 100]])
  configure(long)
  configure(short)
  await pair(`run --continue, time to first request, ${LONG_TURNS} / 100 long turns`, 1.5, () => continueOnce(long, cwd), () => continueOnce(short, cwd))
  // The same session in the log format before each text was stored once.
  const v3 = temp("long-v3")
  await writeSessions(jsonl(v3), turn, [[cwd, LONG_TURNS]], 3)
  configure(v3)
  const logBytes = (home: string) => {
    const [file] = readdirSync(join(home, "sessions")).filter((f) => f.endsWith(".jsonl"))
    return statSync(join(home, "sessions", file!)).size
  }
  console.log(`${LONG_TURNS}-turn log: version 4 ${logBytes(long)} bytes, version 3 ${logBytes(v3)} bytes (${(logBytes(long) / logBytes(v3)).toFixed(2)}×)`)
  await pair(`run --continue, ${LONG_TURNS} long turns, log version 4 / version 3`, 1.0, () => continueOnce(long, cwd), () => continueOnce(v3, cwd))
  // The same session, its index deleted before each run (a copy, a restore) / up to date (the run before made it again).
  await pair(
    `run --continue, ${LONG_TURNS} long turns, index deleted / up to date`,
    1.3,
    () => {
      rmSync(join(long, "index"), { recursive: true, force: true })
      return continueOnce(long, cwd)
    },
    () => continueOnce(long, cwd),
  )

  // home: a 10-turn session beside 1,000 others / alone.
  const crowded = temp("crowded")
  const alone = temp("alone")
  const others = Array.from({ length: 1000 }, (_, i) => [`/elsewhere/project-${i}`, 6] as const)
  console.log("writing 1,000 sessions of 6 long turns (JSONL)…")
  await writeSessions(jsonl(crowded), turn, others)
  await writeSessions(jsonl(crowded), turn, [[cwd, 10]])
  await writeSessions(jsonl(alone), turn, [[cwd, 10]])
  configure(crowded)
  configure(alone)
  await pair("run --continue, 10-turn session, 1,000 other sessions / empty home", 1.1, () => continueOnce(crowded, cwd), () => continueOnce(alone, cwd))

  // sessions: 1,000 / 1, both stores.
  await pair("sessions (JSONL), 1,001 / 1 sessions", 1.3, () => sessionsOnce(crowded, "jsonl"), () => sessionsOnce(alone, "jsonl"))
  const sqliteMany = temp("sqlite-many")
  const sqliteOne = temp("sqlite-one")
  console.log("writing 1,000 sessions of 6 long turns (SQLite)…")
  mkdirSync(sqliteMany, { recursive: true })
  await writeSessions(sqlite(sqliteMany), turn, others)
  await writeSessions(sqlite(sqliteOne), turn, [[cwd, 10]])
  await pair("sessions (SQLite), 1,000 / 1 sessions", 1.3, () => sessionsOnce(sqliteMany, "sqlite"), () => sessionsOnce(sqliteOne, "sqlite"))
} finally {
  await server.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  console.log("figures measured on a shared machine are indicative")
}
