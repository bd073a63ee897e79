// A store in its own process, for the tests that need a second process:
//   hold  <kind> <home> <id>        open the session, say "held", wait to be killed
//   race  <kind> <home> <ids>       say "ready"; for each line "go <i>" on stdin, try to
//                                   open the i-th of the comma-separated ids, say
//                                   "held <i>" or "locked <i>", keep what it holds
//   crash <kind> <home> <id> <run>  say "ready", wait for a line on stdin (so a
//                                   parent can start the next child while the
//                                   current one runs), open the session
//                                   (recovering the last crash), say
//                                   "start <seq>", then append and flush in a
//                                   loop, saying "flushed <seq>" after each flush
//   step  <kind> <home> <id> <run>  open the session, say "start <seq>", then for
//                                   each line on stdin: "append" appends a batch
//                                   (says "appended <seq>"), "flush" flushes (says
//                                   "flushed <seq>", or "failed <tag> <message>")
// For the postgres kind, <home> is the schema the store uses.
// Lines go to stdout with a synchronous write, so a line the parent receives was
// written after the flush it reports had returned.
import { writeSync } from "node:fs"
import { Context, Effect, Layer } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { type FileIo, nodeIo } from "../../src/internal/FileIo.js"
import { SessionStore } from "../../src/SessionStore.js"
import { crashEvent } from "./crashLog.js"

const [mode, kind, home, id, runArg] = process.argv.slice(2) as [string, string, string, SessionId, string?]
const say = (line: string) => writeSync(1, `${line}\n`)

// Racers pause a random 0-2 ms before each file operation on a lease, so the
// interleavings a busy machine produces now and then happen in every round.
const pause = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.random() * 2)
const jittered = (io: FileIo): FileIo => {
  const onLease = (path: unknown) => typeof path === "string" && path.includes(".lock")
  return {
    ...io,
    openSync: ((path: string, ...rest: Array<never>) => {
      if (onLease(path)) pause()
      return (io.openSync as (...args: Array<unknown>) => number)(path, ...rest)
    }) as FileIo["openSync"],
    linkSync: (from, to) => {
      pause()
      io.linkSync(from, to)
    },
    renameSync: (from, to) => {
      pause()
      io.renameSync(from, to)
    },
    unlinkSync: (path) => {
      if (onLease(path)) pause()
      io.unlinkSync(path)
    },
    readFileSync: (path, encoding) => {
      if (onLease(path)) pause()
      return io.readFileSync(path, encoding)
    },
  }
}

const layer = kind === "sqlite"
  ? (await import("../../src/Sqlite.js")).layerSqlite({ home })
  : kind === "postgres"
  ? (await import("../../src/Postgres.js")).layerPostgres({ url: (await import("./pgUrl.js")).TEST_DATABASE_URL, schema: home })
  : mode === "race"
  ? Layer.scoped(SessionStore, (await import("../../src/Jsonl.js")).makeJsonl({ home }, jittered(nodeIo)))
  : (await import("../../src/Jsonl.js")).layerJsonl({ home })

const goSignal = () =>
  new Promise<void>((resolve) => {
    say("ready")
    process.stdin.once("data", () => resolve())
  })

const lines = () => {
  let partial = ""
  const queue: Array<string> = []
  let wake: (() => void) | undefined
  process.stdin.setEncoding("utf8").on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n")
    partial = parts.pop()!
    queue.push(...parts)
    wake?.()
  })
  return () =>
    new Promise<string>((resolve) => {
      const check = () => (queue.length > 0 ? resolve(queue.shift()!) : (wake = check))
      check()
    })
}

const program = Effect.gen(function*() {
  if (mode === "crash") yield* Effect.promise(goSignal)
  const store = Context.get(yield* Layer.build(layer), SessionStore)
  if (mode === "race") {
    const ids = id.split(",") as Array<SessionId>
    const next = lines()
    say("ready")
    for (;;) {
      const line = yield* Effect.promise(next)
      const i = Number(line.split(" ")[1])
      const opened = yield* Effect.either(store.open(ids[i]!))
      say(opened._tag === "Right" ? `held ${i}` : `${opened.left._tag === "SessionLocked" ? "locked" : opened.left.message} ${i}`)
    }
  }
  say("loading")
  const loaded = yield* store.open(id)
  if (mode === "hold") {
    say("held")
    return yield* Effect.never
  }
  const run = Number(runArg)
  // `open` leaves out the raw chunks of completed steps: the next seq follows the last event, not the count.
  const start = (loaded.events.at(-1)?.seq ?? 0) + 1
  say(`start ${start}`)
  let next = start
  if (mode === "step") {
    const commands = lines()
    for (;;) {
      const command = yield* Effect.promise(commands)
      if (command === "append") {
        const events = Array.from({ length: 3 }, (_, i) => crashEvent(run, start, next + i))
        yield* store.append(id, events)
        next += events.length
        say(`appended ${next - 1}`)
      } else {
        const flushed = yield* Effect.either(store.flush(id))
        say(flushed._tag === "Right" ? `flushed ${next - 1}` : `failed ${flushed.left._tag} ${flushed.left.message}`)
      }
    }
  }
  for (let batch = 0;; batch++) {
    // Batches of 1 to 40 events: small flushes and large writes a kill can tear.
    const size = 1 + ((batch * 7919 + run * 31) % 40)
    const events = Array.from({ length: size }, (_, i) => crashEvent(run, start, next + i))
    yield* store.append(id, events)
    yield* store.flush(id)
    next += size
    say(`flushed ${next - 1}`)
  }
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  process.stderr.write(`child failed: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
