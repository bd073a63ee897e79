// The JSONL index of sessions (`<home>/index/<id>.json`): written by the lease
// holder after each write, read by `list` only while it matches the log
// exactly. Deleted, stale or forged entries never change what `list` says:
// the log is read instead, and the entry rewritten (the index made again if it is gone). And `open`, which reads
// completed steps' raw chunks for framing only: it returns what continuing
// needs, and still refuses a damaged chunk line by file and line.
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { Jsonl } from "../src/index.js"
import { serialize } from "../src/internal/JsonlFile.js"
import { type Harness, withStore } from "./support/conformance.js"
import { chunkEvent, inFlightTurn, streamedTurn } from "./support/fixtures.js"

const withHome = <A, E>(body: (home: string, h: Harness) => Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    const home = mkdtempSync(join(tmpdir(), "turnlog-index-"))
    return body(home, { store: Jsonl.layerJsonl({ home }) }).pipe(
      Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))),
    )
  })

/** A session of two turns written through the store; its id. */
const twoTurns = (h: Harness) =>
  withStore(h, (store) =>
    Effect.gen(function*() {
      const id = yield* store.create({ cwd: "/p" })
      yield* store.append(id, [...streamedTurn(1, "first question", 3), ...streamedTurn(8, "second", 2)])
      yield* store.flush(id)
      return id
    }))

const listed = (h: Harness) =>
  Effect.map(withStore(h, (store) => store.list()), (list) => ({
    sessions: list.sessions.map((s) => [s.id, s.turns, s.title, s.updatedAt]),
    unreadable: list.unreadable.map((u) => [u.id, u.error.message]),
  }))

const entryOf = (home: string, id: string) => JSON.parse(readFileSync(join(home, "index", `${id}.json`), "utf8")) as Record<string, unknown>

describe("jsonl index of sessions", () => {
  it.effect("the writer records each session's summary and the log it was taken from", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* twoTurns(h)
        const log = statSync(join(home, "sessions", `${id}.jsonl`))
        expect(entryOf(home, id)).toMatchObject({
          version: 1,
          id,
          cwd: "/p",
          turns: 2,
          title: "first question",
          openTurn: false,
          lastSeq: 13,
          log: { ino: log.ino, size: log.size },
        })
        expect(yield* listed(h)).toStrictEqual({ sessions: [[id, 2, "first question", chunkEvent(1).time]], unreadable: [] })
      })
    ))

  it.effect("a deleted entry is rebuilt from the log, with the same answer", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* twoTurns(h)
        const before = yield* listed(h)
        unlinkSync(join(home, "index", `${id}.json`))
        expect(yield* listed(h)).toStrictEqual(before)
        expect(entryOf(home, id)).toMatchObject({ turns: 2, lastSeq: 13 })
        // A damaged entry is no entry.
        writeFileSync(join(home, "index", `${id}.json`), '{"version":1,')
        expect(yield* listed(h)).toStrictEqual(before)
        expect(entryOf(home, id)).toMatchObject({ turns: 2, lastSeq: 13 })
      })
    ))

  it.effect("an entry longer than one read (a long cwd) is used whole; a FIFO or a directory where an entry should be is no entry, and no wait", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const cwd = `/${"d".repeat(40_000)}`
        const id = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd })
            yield* store.append(id, streamedTurn(1, "first question", 3))
            yield* store.flush(id)
            return id
          }))
        const entry = join(home, "index", `${id}.json`)
        expect(statSync(entry).size).toBeGreaterThan(40_000)
        // Used as it is: listing does not write it again (reading the log would).
        const past = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000)
        utimesSync(entry, past, past)
        const whole = yield* withStore(h, (store) => store.list())
        expect(whole.sessions.map((s) => [s.id, s.cwd.length, s.turns])).toStrictEqual([[id, 40_001, 1]])
        expect(Math.round(statSync(entry).mtimeMs)).toBe(past.getTime())
        const before = yield* listed(h)
        for (const make of [(path: string) => execFileSync("mkfifo", [path]), (path: string) => mkdirSync(path)]) {
          rmSync(entry, { recursive: true, force: true })
          make(entry)
          expect(yield* listed(h)).toStrictEqual(before)
        }
      })
    ))

  it.effect("the writer rewrites its entry in place on each flush; an entry whose checksum fails is no entry", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/p" })
            const file = join(home, "index", `${id}.json`)
            yield* store.append(id, streamedTurn(1, "first question", 3))
            yield* store.flush(id)
            const ino = statSync(file).ino
            yield* store.append(id, streamedTurn(8, "second", 2))
            yield* store.flush(id)
            // The same file, rewritten: no new file per flush.
            expect(statSync(file).ino).toBe(ino)
            expect(entryOf(home, id)).toMatchObject({ turns: 2, lastSeq: 13 })
            return id
          }))
        const file = join(home, "index", `${id}.json`)
        const text = readFileSync(file, "utf8")
        expect(text).toMatch(/,"check":"[0-9a-f]{8}"\}\n$/)
        // What a rewrite met halfway could leave: valid JSON, the log's own stamp, another count.
        writeFileSync(file, text.replace('"turns":2', '"turns":9'))
        expect((yield* listed(h)).sessions).toStrictEqual([[id, 2, "first question", chunkEvent(1).time]])
        expect(readFileSync(file, "utf8")).toBe(text)
      })
    ))

  it.effect("a turn appended behind the index's back, and a log cut back, are seen; the entry follows the log", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* twoTurns(h)
        const file = join(home, "sessions", `${id}.jsonl`)
        const size = statSync(file).size
        // Another process appends a turn without writing the index.
        appendFileSync(file, serialize(streamedTurn(14, "third", 1)))
        expect((yield* listed(h)).sessions).toStrictEqual([[id, 3, "first question", chunkEvent(1).time]])
        expect(entryOf(home, id)).toMatchObject({ turns: 3, lastSeq: 18 })
        // Cut back to the two turns: the entry for three is stale.
        truncateSync(file, size)
        expect((yield* listed(h)).sessions).toStrictEqual([[id, 2, "first question", chunkEvent(1).time]])
        expect(entryOf(home, id)).toMatchObject({ turns: 2, lastSeq: 13 })
      })
    ))

  it.effect("an entry never wins over its log: a log replaced by another of the same size, or damaged in place, is read", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* twoTurns(h)
        const file = join(home, "sessions", `${id}.jsonl`)
        const text = readFileSync(file, "utf8")
        // Same size, another title: a new file in its place.
        const other = text.replace("first question", "FIRST QUESTION")
        writeFileSync(`${file}.new`, other)
        renameSync(`${file}.new`, file)
        expect((yield* listed(h)).sessions).toStrictEqual([[id, 2, "FIRST QUESTION", chunkEvent(1).time]])
        // One byte flipped in place, the size and the entry's stamp of the size unchanged.
        const damaged = other.replace('"turn/end"', '"turn/enD"')
        writeFileSync(file, damaged)
        expect(statSync(file).size).toBe(Buffer.byteLength(other))
        const read = yield* Effect.flip(withStore(h, (store) => store.read(id as SessionId)))
        expect(yield* listed(h)).toStrictEqual({ sessions: [], unreadable: [[id, read.message]] })
        expect(read.message).toBe(`${file}:8: unknown event type "turn/enD" (written by a newer turnlog?)`)
      })
    ))

  it.effect("a reader makes a deleted index again, with the entries of the logs it read", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* twoTurns(h)
        rmSync(join(home, "index"), { recursive: true })
        expect((yield* listed(h)).sessions).toStrictEqual([[id, 2, "first question", chunkEvent(1).time]])
        expect(existsSync(join(home, "index"))).toBe(true)
        expect(entryOf(home, id)).toMatchObject({ turns: 2, lastSeq: 13 })
      })
    ))
})

describe("jsonl open reads what continuing needs", () => {
  it.effect("completed steps' raw chunks are left out; the step in flight is kept and its turn closed; read returns all", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const inFlight = inFlightTurn(14, "third", 2)
        const id = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/p" })
            yield* store.append(id, [...streamedTurn(1, "first question", 3), ...streamedTurn(8, "second", 2), ...inFlight])
            yield* store.flush(id)
            return id
          }))
        const read = yield* withStore(h, (store) => store.read(id))
        expect(read.events.map((e) => e.seq)).toStrictEqual(Array.from({ length: 18 }, (_, i) => i + 1))
        const opened = yield* withStore(h, (store) => store.open(id))
        expect(opened.events.map((e) => [e.seq, e.type])).toStrictEqual([
          [1, "turn/start"],
          [2, "user/message"],
          [3, "request/start"],
          [7, "turn/end"],
          [8, "turn/start"],
          [9, "user/message"],
          [10, "request/start"],
          [13, "turn/end"],
          [14, "turn/start"],
          [15, "user/message"],
          [16, "request/start"],
          [17, "assistant/chunk"],
          [18, "assistant/chunk"],
          [19, "turn/end"],
        ])
        expect(opened.events[11]).toStrictEqual(chunkEvent(17))
        expect(opened.recovery.closedTurn?.map((e) => e.type)).toStrictEqual(["turn/end"])
        // The next write follows the last event, not the count of events returned.
        expect(entryOf(home, id)).toMatchObject({ lastSeq: 19, turns: 3, openTurn: false })
      })
    ))

  it.effect.each(
    [
      ["a completed step's chunk line that is not JSON", (line: string) => line.slice(0, -1)],
      ["a completed step's chunk line with its seq out of order", (line: string) => line.replace('"seq":5,', '"seq":50,')],
    ] as const,
  )("%s refuses open by file and line, and changes nothing", ([_name, damage]) =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* twoTurns(h)
        const file = join(home, "sessions", `${id}.jsonl`)
        const lines = readFileSync(file, "utf8").split("\n")
        // Line 6 is the event of seq 5, a raw chunk of the first (completed) step.
        expect(JSON.parse(lines[5]!)).toMatchObject({ seq: 5, type: "assistant/chunk" })
        lines[5] = damage(lines[5]!)
        writeFileSync(file, lines.join("\n"))
        const before = readFileSync(file)
        const refused = yield* Effect.flip(withStore(h, (store) => store.open(id)))
        expect(refused.message.startsWith(`${file}:6: `)).toBe(true)
        expect(readFileSync(file).equals(before)).toBe(true)
      })
    ))
})
