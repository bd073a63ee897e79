// `read` of a session whose last turn has no end says whether a live process
// holds it (the turn is in flight there: `show` and `doctor` must not call it
// crashed) or none does (a dead process left it open, which the next `open`
// closes).
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { Jsonl } from "../src/index.js"
import * as Sqlite from "../src/Sqlite.js"
import { type Harness, withStore } from "./support/conformance.js"
import { stamped, userMessage } from "./support/fixtures.js"

const stores = [
  ["jsonl", (home: string) => Jsonl.layerJsonl({ home })],
  ["sqlite", (home: string) => Sqlite.layerSqlite({ home })],
] as const

describe.each(stores)("%s: read of a session with an open turn", (_name, layer) => {
  it.effect("names the live process holding it while the turn is in flight, and none once it is let go", () =>
    Effect.suspend(() => {
      const home = mkdtempSync(join(tmpdir(), "turnlog-in-flight-"))
      const h: Harness = { store: layer(home) }
      return Effect.gen(function*() {
        const { during, id } = yield* withStore(h, (writer) =>
          Effect.gen(function*() {
            const id = yield* writer.create({ cwd: "/p" })
            yield* writer.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("busy")]))
            yield* writer.flush(id)
            // Another store (another process, as far as the files go) reads while this one writes.
            const during = yield* withStore(h, (reader) => reader.read(id))
            return { during, id }
          }))
        expect(during.recovery).toStrictEqual({ openTurn: { seq: 1, holder: { host: hostname(), pid: process.pid } } })
        const after = yield* withStore(h, (reader) => reader.read(id))
        expect(after.recovery).toStrictEqual({ openTurn: { seq: 1 } })
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
    }))
})

describe("jsonl: a lease left by a dead process", () => {
  it.effect("is no holder: the open turn is one a dead process left", () =>
    Effect.suspend(() => {
      const home = mkdtempSync(join(tmpdir(), "turnlog-in-flight-dead-"))
      const h: Harness = { store: Jsonl.layerJsonl({ home }) }
      return Effect.gen(function*() {
        const id = yield* withStore(h, (writer) =>
          Effect.gen(function*() {
            const id = yield* writer.create({ cwd: "/p" })
            yield* writer.append(id, stamped(1, [{ type: "turn/start", data: {} }]))
            return id
          }))
        writeFileSync(join(home, "sessions", `${id}.lock`), JSON.stringify({ pid: 2 ** 31 - 2, token: "dead@1" }))
        const read = yield* withStore(h, (reader) => reader.read(id))
        expect(read.recovery).toStrictEqual({ openTurn: { seq: 1 } })
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
    }))
})
