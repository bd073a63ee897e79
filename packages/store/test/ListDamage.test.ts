// `list` (what `turnlog sessions` shows) reads only the front of most lines,
// but refuses what `read` refuses about a log's shape — an unknown event type,
// a gap in seq, an unreadable line with complete events after it — naming the
// session as unreadable with the same reason, instead of listing it as a good
// one. A torn tail (unreadable lines with nothing complete after them) is not
// damage: the session is listed with the events before it.
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
  it.effect.each([
    ["an unknown event type", (lines: Array<string>) => {
      lines[4] = lines[4]!.replace("\"type\":\"turn/start\"", "\"type\":\"turn/begin\"")
    }, (file: string) => `${file}:5: unknown event type "turn/begin" (written by a newer turnlog?)`],
    ["a gap in seq", (lines: Array<string>) => {
      lines[4] = lines[4]!.replace("\"seq\":4,", "\"seq\":9,")
    }, (file: string) => `${file}:5: expected event seq 4, found 9`],
    ["an unreadable line before a committed turn end", (lines: Array<string>) => {
      lines[2] = "{garbage"
    }, (file: string) => `${file}:3: unreadable line followed by a committed turn end (line 4)`],
    ["an unreadable line before complete events", (lines: Array<string>) => {
      lines[5] = "{garbage"
    }, (file: string) => `${file}:6: unreadable line followed by a complete event (seq 6, line 7)`],
  ] as const)("%s: unreadable with the reason read gives", ([_name, damage, reason]) =>
    Effect.gen(function*() {
      const result = yield* listDamaged(damage)
      expect(result.readError).toBe(reason(result.file))
      expect(result.listed).toEqual([])
      expect(result.unreadable).toEqual([[result.id, reason(result.file)]])
    }))

  it.effect("a torn tail is listed, summarising the events before it", () =>
    Effect.gen(function*() {
      const result = yield* listDamaged((lines) => {
        lines[6] = "{\"seq\":6,\"time\":\"2025-01-02T03:0"
        lines.length = 7 // no newline after the torn line
      })
      expect(result.unreadable).toEqual([])
      expect(result.listed).toEqual([[result.id, 2, "list me"]])
    }))
})
