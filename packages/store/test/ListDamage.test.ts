// `list` (what `turnlog sessions` shows) makes the pass `read` makes over each
// log, so it refuses what `read` refuses — an unknown event type, a gap in
// seq, an unreadable line (even one whose front looks right) with complete
// events after it, a line that is not an event of its type — naming the
// session as unreadable with the same reason, instead of listing it as a good
// one. A torn tail (unreadable lines with nothing complete after them) is not
// damage: the session is listed with the events before it. A file whose name
// is no session id is named, not listed as a session nobody can open.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { Jsonl } from "../src/index.js"
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
    const home = mkdtempSync(join(tmpdir(), "turnlog-list-damage-"))
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
        listed: listed.sessions.map((s) => [s.id, s.turns, s.title]),
        unreadable: listed.unreadable.map((u) => [u.id, u.error.message]),
        readError: read._tag === "Left" ? read.left.message : undefined,
        id,
        file,
      }
    }).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
  })

describe("jsonl list: a damaged log is named, not listed", () => {
  it.effect.each(
    [
      ["an unknown event type", (lines: Array<string>) => {
        lines[4] = lines[4]!.replace('"type":"turn/start"', '"type":"turn/begin"')
      }, (file: string) => `${file}:5: unknown event type "turn/begin" (written by a newer turnlog?)`],
      ["a gap in seq", (lines: Array<string>) => {
        lines[4] = lines[4]!.replace('"seq":4,', '"seq":9,')
      }, (file: string) => `${file}:5: expected event seq 4, found 9`],
      ["an unreadable line before a committed turn end", (lines: Array<string>) => {
        lines[2] = "{garbage"
      }, (file: string) => `${file}:3: unreadable line followed by a committed turn end (line 4)`],
      ["an unreadable line before complete events", (lines: Array<string>) => {
        lines[5] = "{garbage"
      }, (file: string) => `${file}:6: unreadable line followed by a complete event (seq 6, line 7)`],
    ] as const,
  )("%s: unreadable with the reason read gives", ([_name, damage, reason]) =>
    Effect.gen(function*() {
      const result = yield* listDamaged(damage)
      expect(result.readError).toBe(reason(result.file))
      expect(result.listed).toEqual([])
      expect(result.unreadable).toEqual([[result.id, reason(result.file)]])
    }))

  it.effect("a line whose front looks right but whose data is cut, with complete events after it", () =>
    Effect.gen(function*() {
      // Line 6 (seq 5) keeps `{"seq":5,"time":"…","type":"assistant/chunk",` and loses the rest of its data.
      const result = yield* listDamaged((lines) => {
        lines[5] = lines[5]!.slice(0, 80)
      })
      expect(result.readError).toBe(`${result.file}:6: unreadable line followed by a complete event (seq 6, line 7)`)
      expect(result.unreadable).toEqual([[result.id, result.readError]])
      expect(result.listed).toEqual([])
    }))

  it.effect("a line that parses but is not an event of its type", () =>
    Effect.gen(function*() {
      const result = yield* listDamaged((lines) => {
        lines[3] = lines[3]!.replace('"reason":"completed"', '"reason":"bogus"')
      })
      expect(result.readError?.startsWith(`${result.file}:4: `)).toBe(true)
      expect(result.unreadable).toEqual([[result.id, result.readError]])
      expect(result.listed).toEqual([])
    }))

  it.effect("a torn last line whose front looks right is left out of the summary, as read leaves it out", () =>
    Effect.gen(function*() {
      const result = yield* listDamaged((lines) => {
        lines[6] = '{"seq":6,"time":"2030-01-01T00:00:00.000Z","type":"turn/start","data":{'
      })
      expect(result.readError).toBeUndefined()
      expect(result.unreadable).toEqual([])
      expect(result.listed).toEqual([[result.id, 2, "list me"]])
    }))

  it.effect("a torn tail is listed, summarising the events before it", () =>
    Effect.gen(function*() {
      const result = yield* listDamaged((lines) => {
        lines[6] = '{"seq":6,"time":"2025-01-02T03:0'
        lines.length = 7 // no newline after the torn line
      })
      expect(result.unreadable).toEqual([])
      expect(result.listed).toEqual([[result.id, 2, "list me"]])
    }))
})

describe("jsonl list: a file whose name is no session id", () => {
  it.effect("is named as unreadable, not listed as a session nobody can open", () =>
    Effect.suspend(() => {
      const home = mkdtempSync(join(tmpdir(), "turnlog-list-id-"))
      const h: Harness = { store: Jsonl.layerJsonl({ home }) }
      const id = "my session"
      return Effect.gen(function*() {
        yield* withStore(h, () => Effect.void)
        const header = { type: "session", version: 1, id, createdAt: "2025-01-01T00:00:00.000Z", cwd: "/p" }
        const lines = [header, ...stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi")])].map((v) => JSON.stringify(v))
        const file = join(home, "sessions", `${id}.jsonl`)
        writeFileSync(file, lines.join("\n") + "\n")
        const listed = yield* withStore(h, (store) => store.list())
        const read = yield* Effect.either(withStore(h, (store) => store.read(id as never)))
        expect(read._tag === "Left" ? read.left._tag : "read").toBe("SessionNotFound")
        expect(listed.sessions).toEqual([])
        expect(listed.unreadable.map((u) => [u.id, u.error.message])).toEqual([
          [id, `${file}:1: "my session" is not a session id (letters, digits, ".", "_" and "-", not first)`],
        ])
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
    }))
})
