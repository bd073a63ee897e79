// One damaged line inside the last (open) turn, followed by committed events:
// the file is damaged, not torn. It is refused with the damaged line, and the
// events after it are neither cut nor their seqs written again.
import { describe, expect, it } from "@effect/vitest"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { Jsonl } from "../src/index.js"
import { type Harness, withStore } from "./support/conformance.js"
import { chunkEvent, stamped, userMessage } from "./support/fixtures.js"

const events = [
  ...stamped(1, [{ type: "turn/start", data: {} }, userMessage("first"), { type: "turn/end", data: { reason: "completed" } }]),
  ...stamped(4, [{ type: "turn/start", data: {} }, userMessage("second, a long turn")]),
  chunkEvent(6),
  chunkEvent(7),
  chunkEvent(8),
]

const damaged = (damage: (line: string) => string) =>
  Effect.suspend(() => {
    const home = mkdtempSync(join(tmpdir(), "turnlog-mid-damage-"))
    const h: Harness = { store: Jsonl.layerJsonl({ home }) }
    return Effect.gen(function*() {
      // Every event is appended and flushed (acknowledged) by the store itself.
      const id = yield* withStore(h, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/p" })
          for (const event of events) {
            yield* store.append(id, [event])
            yield* store.flush(id)
          }
          return id
        }))
      const file = join(home, "sessions", `${id}.jsonl`)
      const lines = readFileSync(file, "utf8").split("\n")
      // Line 6 is seq 5 (the user's message of the open turn); seq 6..8 follow, complete and valid.
      lines[5] = damage(lines[5]!)
      writeFileSync(file, lines.join("\n"))
      const before = readFileSync(file, "utf8")
      const opened = yield* Effect.either(withStore(h, (store) => store.open(id)))
      const after = yield* Effect.either(withStore(h, (store) => store.read(id)))
      const untouched = readFileSync(file, "utf8") === before && !existsSync(`${file}.torn-1`)
      return { opened, after, file, untouched }
    }).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
  })

describe("jsonl: damage inside the open turn", () => {
  it.effect("a flipped byte in a committed line does not get the committed events after it cut from the log", () =>
    Effect.gen(function*() {
      const { after, file, opened, untouched } = yield* damaged((line) => line.replace('"data"', '"data#'))
      expect(opened._tag === "Left" ? opened.left.message : "opened").toBe(
        `${file}:6: unreadable line followed by a complete event (seq 6, line 7)`,
      )
      expect(after._tag === "Left" ? after.left._tag : "read").toBe("SessionCorrupt")
      expect(untouched).toBe(true)
    }))

  it.effect("a committed line with a BOM in front is not taken for a torn tail", () =>
    Effect.gen(function*() {
      const { opened, untouched } = yield* damaged((line) => "\uFEFF" + line)
      expect(opened._tag === "Left" ? opened.left._tag : opened.right.recovery).toBe("SessionCorrupt")
      expect(untouched).toBe(true)
    }))
})
