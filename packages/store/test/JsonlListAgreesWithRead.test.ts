// The JSONL `list` makes the pass `read` makes, line by line and whole: a line
// whose front looks right but whose body is damaged, or whose data is not an
// event of its type, names the session as unreadable; a torn last line is left
// out of the summary as `read` leaves it out; a file whose name is no session
// id is named, not listed as a session nobody can open.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { Jsonl, Summary } from "../src/index.js"
import { type Harness, withStore } from "./support/conformance.js"
import { chunkEvent, stamped, userMessage } from "./support/fixtures.js"

const events = [
  ...stamped(1, [{ type: "turn/start", data: {} }, userMessage("list me"), { type: "turn/end", data: { reason: "completed" } }]),
  ...stamped(4, [{ type: "turn/start", data: {} }]),
  chunkEvent(5),
  chunkEvent(6),
]

/** Stores `events`, rewrites the file's lines with `damage`, then lists the store and reads the session. */
const listDamaged = (damage: (lines: Array<string>) => void) =>
  Effect.suspend(() => {
    const home = mkdtempSync(join(tmpdir(), "turnlog-list-agrees-"))
    const h: Harness = { store: Jsonl.layerJsonl({ home }) }
    return Effect.gen(function*() {
      const id = yield* withStore(h, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/p" })
          yield* store.append(id, events)
          yield* store.flush(id)
          return id
        }))
      const file = join(home, "sessions", `${id}.jsonl`)
      const lines = readFileSync(file, "utf8").split("\n")
      damage(lines)
      writeFileSync(file, lines.join("\n"))
      const listed = yield* withStore(h, (store) => store.list())
      const read = yield* Effect.either(withStore(h, (store) => store.read(id)))
      return {
        listed: listed.sessions,
        unreadable: listed.unreadable.map((u) => [u.id, u.error.message]),
        readError: read._tag === "Left" ? read.left.message : undefined,
        readSummary: read._tag === "Right" ? Summary.summarize(read.right.header, read.right.events) : undefined,
        id,
        file,
      }
    }).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
  })

describe("jsonl list refuses what read refuses, even when a line's front is intact", () => {
  it.effect("a line cut inside its data (front intact) with complete events after it", () =>
    Effect.gen(function*() {
      // Line 6 (seq 5) keeps `{"seq":5,"time":"…","type":"assistant/chunk",` and loses the rest of its data.
      const result = yield* listDamaged((lines) => {
        lines[5] = lines[5]!.slice(0, 80)
      })
      expect(result.readError).toBe(`${result.file}:6: unreadable line followed by a complete event (seq 6, line 7)`)
      expect(result.unreadable).toEqual([[result.id, result.readError]])
      expect(result.listed).toEqual([])
    }))

  it.effect("a line that parses but whose data is not an event of its type", () =>
    Effect.gen(function*() {
      const result = yield* listDamaged((lines) => {
        lines[3] = lines[3]!.replace("\"reason\":\"completed\"", "\"reason\":\"bogus\"")
      })
      expect(result.readError).toMatch(new RegExp(`^${result.file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:4: `))
      expect(result.unreadable).toEqual([[result.id, result.readError]])
      expect(result.listed).toEqual([])
    }))

  it.effect("a torn last line whose front is intact: list summarises what read keeps, not the torn line", () =>
    Effect.gen(function*() {
      // A last line with its newline whose data is cut: read takes it as a torn tail
      // (events 1..5 kept); list counts it as a turn started in 2030.
      const result = yield* listDamaged((lines) => {
        lines[6] = "{\"seq\":6,\"time\":\"2030-01-01T00:00:00.000Z\",\"type\":\"turn/start\",\"data\":{"
      })
      expect(result.readError).toBeUndefined()
      expect(result.unreadable).toEqual([])
      expect(result.listed).toEqual([result.readSummary])
    }))
})

describe("jsonl list only lists sessions read can find", () => {
  it.effect("a log whose id is not one the store reads (a space in it) is not listed as a good session", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), "turnlog-list-id-"))
      const h: Harness = { store: Jsonl.layerJsonl({ home }) }
      const id = "my session"
      const result = yield* Effect.gen(function*() {
        yield* withStore(h, () => Effect.void)
        const header = { type: "session", version: 1, id, createdAt: "2025-01-01T00:00:00.000Z", cwd: "/p" }
        const lines = [header, ...stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi")])].map((v) => JSON.stringify(v))
        writeFileSync(join(home, "sessions", `${id}.jsonl`), lines.join("\n") + "\n")
        const listed = yield* withStore(h, (store) => store.list())
        const read = yield* Effect.either(withStore(h, (store) => store.read(id as never)))
        return {
          listed: listed.sessions.map((s) => s.id as string),
          unreadable: listed.unreadable.map((u) => u.id),
          read: read._tag === "Left" ? read.left._tag : "read",
        }
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
      // read cannot find it; list names it instead of showing a session one can show, continue or examine.
      expect(result.read).toBe("SessionNotFound")
      expect(result.listed).toEqual([])
      expect(result.unreadable).toEqual([id])
    }))
})
