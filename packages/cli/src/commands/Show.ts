/**
 * `turnlog show <id>`: a session as a readable transcript, read without
 * changing it. The log is streamed, one turn's events held at a time (see
 * `TranscriptStream`), so a long session costs no more memory than its
 * longest turn.
 *
 * `--follow` then keeps printing what another process (or machine) writes to
 * the session, until the turn in flight ends — or, when none is open, the
 * next one; `--forever` keeps following until interrupted. With `--json`,
 * `show` prints the transcript as one JSON value, and `--follow` prints one
 * JSON line per turn as it ends, after a first line with the session's id,
 * cwd and creation time.
 *
 * A follower outlives its store failing to answer (a database server
 * restarting, a network cut): a read that fails with an I/O error is tried
 * again with a backoff (100 ms, doubling, at most 2 s apart) for as long as it
 * follows, from the last event it printed, so nothing is printed twice or
 * missed; one note on stderr says so per outage.
 */
import { Duration, Effect, Schedule, Stream } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { SessionStore, type StoreError } from "@turnlog/store"
import * as StoreLayers from "../StoreLayers.js"
import * as Pages from "../Pages.js"
import { note, out, raw } from "../Output.js"
import * as SessionIdArg from "../SessionIdArg.js"
import { Invocation, type Settings } from "../Settings.js"
import { toCommandError } from "../StoreErrors.js"
import * as Transcript from "../Transcript.js"
import * as TranscriptText from "../TranscriptText.js"
import { KeptFrom, type Printed, Printer } from "../TranscriptStream.js"

export interface ShowOptions {
  /** An id, or a unique prefix or suffix of one; none: the latest session in this directory. */
  readonly id?: string | undefined
  readonly json: boolean
  readonly follow?: boolean
  readonly forever?: boolean
}

/** Exact JSON, written as it goes: a value indented `depth` levels as `JSON.stringify(…, null, 2)` nests it. */
const nested = (value: unknown, depth: number): string => JSON.stringify(value, null, 2).replace(/\n/g, `\n${"  ".repeat(depth)}`)

/** Writes `show --json` a turn at a time, byte for byte what `JSON.stringify(transcript, null, 2)` gives. */
export class JsonWriter {
  private turns = 0
  constructor(private readonly write: (text: string) => Effect.Effect<void>) {}
  start(header: SessionLog.SessionHeader) {
    return this.write(`{\n  "id": ${nested(header.id, 1)},\n  "cwd": ${nested(header.cwd, 1)},\n  "createdAt": ${nested(header.createdAt, 1)},\n  "turns": [`)
  }
  turn(turn: Transcript.Turn) {
    return this.write(`${this.turns++ === 0 ? "" : ","}\n    ${nested(turn, 2)}`)
  }
  end(rest: Omit<Transcript.Transcript, "id" | "cwd" | "createdAt" | "turns">) {
    const fields = Object.entries(rest).map(([key, value]) => `,\n  ${JSON.stringify(key)}: ${nested(value, 1)}`).join("")
    return this.write(`${this.turns === 0 ? "]" : "\n  ]"}${fields}\n}\n`)
  }
}

/** How often a follower tries its store again while it does not answer: 100 ms, doubling, at most 2 s apart. */
const AGAIN = Schedule.exponential(Duration.millis(100)).pipe(Schedule.union(Schedule.spaced(Duration.seconds(2))))

const printLines = (printed: Printed) => (printed.lines.length === 0 ? Effect.void : out(`${printed.lines.join("\n")}\n`))

const printTurnLines = (printed: Printed) => Effect.forEach(printed.ended, (turn) => raw(`${JSON.stringify(turn)}\n`), { discard: true })

export const show = (settings: Settings, options: ShowOptions) =>
  Effect.gen(function*() {
    const id = options.id === undefined
      ? yield* SessionIdArg.latestIn((yield* Invocation).cwd, "show")
      : yield* SessionIdArg.resolve(options.id)
    yield* Effect.mapError(run(id, options), toCommandError)
  }).pipe(Effect.provide(StoreLayers.readStoreLayer(settings)))

const run = (id: SessionId, options: ShowOptions) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const follow = options.follow === true || options.forever === true
    const header = yield* store.header(id)
    // What read would report, before the events are printed: a turn it finds open is the one in flight then.
    // The same pass finds where the latest compaction's kept history starts.
    const kept = new KeptFrom()
    const recovery = yield* store.recovery(id, (event) => kept.add(event))
    const printer = new Printer(header, kept.value)
    let next = 1
    const stored = store.stream(id, 1).pipe(Stream.tap((event) => Effect.sync(() => void (next = event.seq + 1))))

    if (!follow) {
      if (options.json) {
        const writer = new JsonWriter(raw)
        yield* writer.start(header)
        yield* Pages.forEachPage(stored, (events) => Effect.forEach(printer.add(events).ended, (turn) => writer.turn(turn), { discard: true }))
        const last = printer.finish(recovery)
        yield* Effect.forEach(last.ended, (turn) => writer.turn(turn), { discard: true })
        const torn = recovery.tornTail
        const holder = recovery.openTurn?.holder
        yield* writer.end({
          ...(last.trailing !== undefined ? { trailing: last.trailing } : {}),
          ...(torn === undefined ? {} : { tornTail: { bytes: torn.bytes, line: torn.line } }),
          ...(holder === undefined ? {} : { writer: holder.pid }),
        })
        return
      }
      yield* out(`${TranscriptText.headerLine(header)}\n`)
      yield* Pages.forEachPage(stored, (events) => printLines(printer.add(events)))
      yield* printLines(printer.finish(recovery))
      return
    }

    const print = options.json ? printTurnLines : printLines
    yield* options.json
      ? raw(`${JSON.stringify({ id: header.id, cwd: header.cwd, createdAt: header.createdAt })}\n`)
      : out(`${TranscriptText.headerLine(header)}\n`)
    yield* Pages.forEachPage(stored, (events) => print(printer.add(events)))
    // An outage is said once, until events flow again.
    let said = false
    const live = Stream.suspend(() => store.follow(id, next)).pipe(
      // The cursor: a follower made again after a failure starts after the last event printed.
      Stream.tap((event) => Effect.sync(() => void (next = event.seq + 1, said = false))),
      Stream.retry(
        Schedule.intersect(
          Schedule.recurWhile<StoreError.StoreError>((error) => error._tag === "StoreIOError"),
          AGAIN,
        ).pipe(
          Schedule.tapInput((error: StoreError.StoreError) =>
            said ? Effect.void : Effect.zipRight(Effect.sync(() => void (said = true)), note(`${error.message}; following again when it answers`))
          ),
        ),
      ),
    )
    yield* Stream.runForEach(
      Stream.chunks(options.forever === true ? live : live.pipe(Stream.takeUntil((event) => event.type === "turn/end"))),
      (events) => print(printer.add(events)),
    )
  })
