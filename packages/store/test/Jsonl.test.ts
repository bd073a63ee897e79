import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { Effect, Layer } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { Jsonl } from "../src/index.js"
import { type FileIo, nodeIo } from "../src/internal/FileIo.js"
import { SessionStore } from "../src/SessionStore.js"
import { conformance, type Harness, withStore } from "./support/conformance.js"
import { chunkEvent, stamped, userMessage } from "./support/fixtures.js"

const tempHome = () => mkdtempSync(join(tmpdir(), "turnlog-store-"))

conformance("jsonl", () => {
  const home = tempHome()
  return { store: Jsonl.layerJsonl({ home }), cleanup: () => rmSync(home, { recursive: true, force: true }) }
})

/** A home with one session of `events` turns' worth written through the layer. */
const withHome = <A, E>(f: (home: string, h: Harness) => Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    const home = tempHome()
    return f(home, { store: Jsonl.layerJsonl({ home }) }).pipe(
      Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))),
    )
  })

const turn = (from: number) => stamped(from, [{ type: "turn/start", data: {} }, userMessage("hello"), { type: "turn/end", data: { reason: "completed" } }])

const writeSession = (h: Harness, events = turn(1)) =>
  withStore(h, (store) =>
    Effect.gen(function*() {
      const id = yield* store.create({ cwd: "/p" })
      yield* store.append(id, events)
      yield* store.flush(id)
      return id
    }))

const fileOf = (home: string, id: SessionId) => join(home, "sessions", `${id}.jsonl`)

describe("jsonl: file format and recovery", () => {
  it.effect("writes the header on line 1 and one event per line", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        const lines = readFileSync(fileOf(home, id), "utf8").split("\n")
        expect(lines.length).toBe(5)
        expect(lines[4]).toBe("")
        expect(JSON.parse(lines[0]!)).toStrictEqual({
          type: "session",
          version: 4,
          id,
          createdAt: expect.any(String),
          cwd: "/p",
        })
        expect(lines.slice(1, 4).map((line) => JSON.parse(line).seq)).toStrictEqual([1, 2, 3])
        expect(lines[1]).toMatch(/^\{"seq":1,"time":"2025-01-02T03:04:05.678Z","type":"turn\/start","data":\{\}\}$/)
        // The lease file is gone once the store's scope closed.
        expect(existsSync(join(home, "sessions", `${id}.lock`))).toBe(false)
      })
    ))

  it.effect("cuts a torn tail at open, keeps its bytes in a sidecar and reports it; read leaves it in place", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        const file = fileOf(home, id)
        const committed = readFileSync(file)
        const torn = '\u0000\u0000\u0000\n{"seq":4,"time":"2025'
        appendFileSync(file, torn)

        const found = yield* withStore(h, (store) => store.read(id))
        expect(found.events.length).toBe(3)
        expect(found.recovery).toStrictEqual({ tornTail: { bytes: Buffer.byteLength(torn), line: 5 } })
        expect(readFileSync(file, "utf8")).toBe(committed.toString("utf8") + torn)

        const opened = yield* withStore(h, (store) => store.open(id))
        expect(opened.recovery).toStrictEqual({
          tornTail: { sidecar: `${file}.torn-1`, bytes: Buffer.byteLength(torn), line: 5 },
        })
        expect(readFileSync(file)).toStrictEqual(committed)
        expect(readFileSync(`${file}.torn-1`, "utf8")).toBe(torn)

        // A second torn tail never overwrites the first sidecar; the session continues after the cut.
        const complete = JSON.stringify(chunkEvent(4))
        appendFileSync(file, complete)
        const again = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const loaded = yield* store.open(id)
            yield* store.append(id, [chunkEvent(4)])
            return loaded
          }))
        expect(again.recovery.tornTail).toStrictEqual({ sidecar: `${file}.torn-2`, bytes: complete.length, line: 5 })
        expect(readFileSync(`${file}.torn-1`, "utf8")).toBe(torn)
        expect(readFileSync(`${file}.torn-2`, "utf8")).toBe(complete)
        const after = yield* withStore(h, (store) => store.read(id))
        expect(after.events.map((e) => e.seq)).toStrictEqual([1, 2, 3, 4])
        expect(after.recovery).toStrictEqual({})
      })
    ))

  it.effect("refuses damage followed by a committed turn/end with file and line, and leaves the file as it is", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        const file = fileOf(home, id)
        appendFileSync(file, '{"seq":4,"ti\n' + JSON.stringify(turn(4)[2]) + "\n")
        const before = readFileSync(file)
        const opened = yield* Effect.flip(withStore(h, (store) => store.open(id)))
        expect(opened).toMatchObject({
          _tag: "SessionCorrupt",
          file,
          line: 5,
          detail: "unreadable line followed by a committed turn end (line 6)",
        })
        expect(opened.message).toBe(`${file}:5: unreadable line followed by a committed turn end (line 6)`)
        expect(yield* Effect.flip(withStore(h, (store) => store.read(id)))).toMatchObject({ _tag: "SessionCorrupt", line: 5 })
        expect(readFileSync(file)).toStrictEqual(before)
        expect(existsSync(`${file}.torn-1`)).toBe(false)
      })
    ))

  it.effect("refuses a line that parses but is not an event, and a seq that skips, naming the line", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        const file = fileOf(home, id)
        const good = readFileSync(file, "utf8")
        writeFileSync(file, good + '{"seq":4,"time":"t","type":"turn/end","data":{"reason":"lunch"}}\n')
        const invalid = yield* Effect.flip(withStore(h, (store) => store.read(id)))
        expect(invalid).toMatchObject({ _tag: "SessionCorrupt", file, line: 5 })
        expect(invalid._tag === "SessionCorrupt" && invalid.detail).toContain("lunch")
        writeFileSync(file, good + JSON.stringify(chunkEvent(5)) + "\n")
        expect(yield* Effect.flip(withStore(h, (store) => store.open(id)))).toMatchObject({
          _tag: "SessionCorrupt",
          file,
          line: 5,
          detail: "expected event seq 4, found 5",
        })
      })
    ))

  it.effect("refuses an unknown event type and a newer log version", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        const file = fileOf(home, id)
        const good = readFileSync(file, "utf8")
        writeFileSync(file, good + '{"seq":4,"time":"t","type":"memory/compact","data":{}}\n')
        const unknown = yield* Effect.flip(withStore(h, (store) => store.open(id)))
        expect(unknown).toMatchObject({ _tag: "UnknownEvent", file, line: 5, type: "memory/compact" })
        expect(readFileSync(file, "utf8")).toBe(good + '{"seq":4,"time":"t","type":"memory/compact","data":{}}\n')

        const [header, ...rest] = good.split("\n")
        // Version 4 (a message refers to the text its request streamed) is this build's; 5 is a newer one's, refused in the words an older build refuses 4 in.
        writeFileSync(file, [JSON.stringify({ ...JSON.parse(header!), version: 5, extra: true }), ...rest].join("\n"))
        const newer = yield* Effect.flip(withStore(h, (store) => store.read(id)))
        expect(newer).toMatchObject({ _tag: "UnsupportedVersion", file, found: 5, supported: 4 })
        expect(newer.message).toBe(`${file}: log version 5 was written by a newer turnlog (this build reads version 4)`)
        // Listed as unreadable, with why; it hides no other session.
        const listed = yield* withStore(h, (store) => store.list())
        expect(listed.sessions).toStrictEqual([])
        expect(listed.unreadable.map((u) => [u.id, u.error.message])).toStrictEqual([[id, newer.message]])
      })
    ))

  it.effect("lists the readable sessions beside the damaged ones, each with why", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        writeFileSync(join(home, "sessions", "empty.jsonl"), "")
        writeFileSync(join(home, "sessions", "copy.jsonl"), readFileSync(fileOf(home, id), "utf8"))
        const listed = yield* withStore(h, (store) => store.list())
        expect(listed.sessions.map((s) => s.id)).toStrictEqual([id])
        expect(listed.unreadable.map((u) => [u.id, u.error.message]).sort()).toStrictEqual([
          ["copy", `${join(home, "sessions", "copy.jsonl")}:1: the header names session ${id}`],
          ["empty", `${join(home, "sessions", "empty.jsonl")}:1: the file is empty`],
        ])
      })
    ))

  it.effect("never overwrites a file that appears where a new session's log goes", () =>
    Effect.suspend(() => {
      const home = tempHome()
      const dir = join(home, "sessions")
      let placed: string | undefined
      // Another program writes a file at the log's path just before create links it into place.
      const io: FileIo = {
        ...nodeIo,
        linkSync: (from, to) => {
          if (String(to).endsWith(".jsonl") && placed === undefined) {
            placed = String(to)
            writeFileSync(placed, "precious\n")
          }
          nodeIo.linkSync(from, to)
        },
      }
      const h: Harness = { store: Layer.scoped(SessionStore, Jsonl.makeJsonl({ home }, io)) }
      return withStore(h, (store) =>
        Effect.gen(function*() {
          const failed = yield* Effect.flip(store.create({ cwd: "/p" }))
          expect(failed).toMatchObject({ _tag: "StoreIOError", path: placed })
          expect(failed.message).toBe(`create (a file already exists; it is left as it is) ${placed}: ${placed} already exists`)
          expect(readFileSync(placed!, "utf8")).toBe("precious\n")
          // No temporary file and no lease are left behind.
          expect(readdirSync(dir)).toStrictEqual([basename(placed!)])
          const id = yield* store.create({ cwd: "/p" })
          yield* store.append(id, turn(1))
          yield* store.flush(id)
          expect(readFileSync(fileOf(home, id), "utf8").split("\n").length).toBe(5)
        })).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
    }))

  it.effect("rolls a failed write back to the previous length; the retry leaves no gap and no duplicate", () =>
    Effect.suspend(() => {
      const home = tempHome()
      let failNext: "write" | "sync" | "write and cut" | undefined
      let failCut = false
      const io: FileIo = {
        ...nodeIo,
        ftruncateSync: (fd, length) => {
          if (failCut) {
            failCut = false
            throw Object.assign(new Error("i/o error"), { code: "EIO" })
          }
          nodeIo.ftruncateSync(fd, length)
        },
        writeStringSync: (fd, text) => {
          if (failNext !== "write" && failNext !== "write and cut") return nodeIo.writeStringSync(fd, text)
          // A short write: half the bytes reach the file; writing the rest meets the full disk (below).
          const bytes = Buffer.from(text)
          return nodeIo.writeSync(fd, bytes, 0, Math.floor(bytes.length / 2))
        },
        writeSync: (fd, buffer, offset, length, position) => {
          if (failNext !== "write" && failNext !== "write and cut") return nodeIo.writeSync(fd, buffer, offset, length, position)
          failCut = failNext === "write and cut"
          failNext = undefined
          // Half the bytes reach the file, then the disk fills up.
          nodeIo.writeSync(fd, buffer, offset, Math.floor(length / 2), position)
          throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" })
        },
        fdatasyncSync: (fd) => {
          if (failNext === "sync") {
            failNext = undefined
            throw Object.assign(new Error("i/o error"), { code: "EIO" })
          }
          nodeIo.fdatasyncSync(fd)
        },
      }
      const h: Harness = { store: Layer.scoped(SessionStore, Jsonl.makeJsonl({ home }, io)) }
      return withStore(h, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/p" })
          const file = fileOf(home, id)
          yield* store.append(id, turn(1))
          yield* store.flush(id)
          const size = statSync(file).size

          yield* store.append(id, [chunkEvent(4), chunkEvent(5)])
          failNext = "write"
          expect(yield* Effect.flip(store.flush(id))).toMatchObject({ _tag: "StoreIOError", path: file })
          expect(statSync(file).size).toBe(size)

          failNext = "sync"
          expect(yield* Effect.flip(store.flush(id))).toMatchObject({ _tag: "StoreIOError", path: file })
          expect(statSync(file).size).toBe(size)

          // The cut itself fails: the half-written bytes stay until the next write cuts them first.
          failNext = "write and cut"
          expect(yield* Effect.flip(store.flush(id))).toMatchObject({ _tag: "StoreIOError", path: file })
          expect(statSync(file).size).toBeGreaterThan(size)

          yield* store.append(id, [chunkEvent(6)])
          yield* store.flush(id)
          const loaded = yield* store.read(id)
          expect(loaded.events.map((e) => e.seq)).toStrictEqual([1, 2, 3, 4, 5, 6])
          expect(loaded.recovery).toStrictEqual({})
        })).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
    }))

  it.effect("takes over a lease whose holder process is gone", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" })
        const deadPid = Number(child.stdout)
        writeFileSync(join(home, "sessions", `${id}.lock`), JSON.stringify({ pid: deadPid, token: "gone" }))
        const opened = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const loaded = yield* store.open(id)
            expect(JSON.parse(readFileSync(join(home, "sessions", `${id}.lock`), "utf8")).pid).toBe(process.pid)
            return loaded
          }))
        expect(opened.events.length).toBe(3)
        expect(existsSync(join(home, "sessions", `${id}.lock`))).toBe(false)
      })
    ))

  it.effect("refuses ids that are not file names of its directory", () =>
    withHome((_home, h) =>
      withStore(h, (store) =>
        Effect.gen(function*() {
          expect(yield* Effect.flip(store.read("../../etc/passwd" as SessionId))).toMatchObject({ _tag: "SessionNotFound" })
        }))
    ))
})
