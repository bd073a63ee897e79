// A log refused for its shape says so in one sentence naming the file, the
// line and what is wrong — not a multi-line dump of the schema — and reading
// it changes nothing.
import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { Jsonl } from "../src/index.js"
import { withStore } from "./support/conformance.js"

const id = "20250101T000000-0badc0de" as SessionId
const header = JSON.stringify({ type: "session", version: 1, id, createdAt: "2025-01-01T00:00:00.000Z", cwd: "/p" })
const start = (seq: unknown) => JSON.stringify({ seq, time: "2025-01-01T00:00:01.000Z", type: "turn/start", data: {} })

const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, (file: string) => string]> = [
  [
    "a log without its header",
    [start(1), start(2)],
    (file) => `${file}:1: the first line is not a session header (type: Expected "session", actual "turn/start")`,
  ],
  [
    "a header without its cwd",
    [JSON.stringify({ type: "session", version: 1, id, createdAt: "2025-01-01T00:00:00.000Z" }), start(1)],
    (file) => `${file}:1: not a valid session header: cwd: is missing`,
  ],
  [
    "an event whose seq is a string",
    [header, start(1), start("2"), start(3)],
    (file) => `${file}:3: not a valid turn/start event: seq: Expected number, actual "2"`,
  ],
  [
    "an event whose data has the wrong type",
    [header, JSON.stringify({ seq: 1, time: "t", type: "turn/end", data: { reason: 7 } })],
    (file) => `${file}:2: not a valid turn/end event: data.reason: Expected "completed", actual 7`,
  ],
]

describe("jsonl: a log of the wrong shape", () => {
  it.effect.each(cases)("%s is refused in one sentence naming file and line", ([, lines, expected]) =>
    Effect.suspend(() => {
      const home = mkdtempSync(join(tmpdir(), "turnlog-wording-"))
      const dir = join(home, "sessions")
      mkdirSync(dir)
      const file = join(dir, `${id}.jsonl`)
      writeFileSync(file, lines.join("\n") + "\n")
      return Effect.gen(function*() {
        const refused = yield* Effect.flip(withStore({ store: Jsonl.layerJsonl({ home }) }, (store) => store.read(id)))
        expect(refused.message).toBe(expected(file))
        expect(readFileSync(file, "utf8")).toBe(lines.join("\n") + "\n")
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
    }))
})
