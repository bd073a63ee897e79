// `delete` in the memory, JSONL and SQLite layers (PostgreSQL: PostgresDelete.e2e.test.ts).
import { expect, it } from "@effect/vitest"
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { Jsonl, Memory } from "../src/index.js"
import * as Sqlite from "../src/Sqlite.js"
import { withStore } from "./support/conformance.js"
import { deletion } from "./support/deletion.js"
import { stamped, userMessage } from "./support/fixtures.js"

const tempHome = () => mkdtempSync(join(tmpdir(), "turnlog-delete-"))

deletion("memory", () => ({ store: Memory.layerMemoryWith(Memory.makeStorage()) }))

deletion("jsonl", () => {
  const home = tempHome()
  return { store: Jsonl.layerJsonl({ home }), cleanup: () => rmSync(home, { recursive: true, force: true }) }
})

deletion("sqlite", () => {
  const home = tempHome()
  return { store: Sqlite.layerSqlite({ home }), cleanup: () => rmSync(home, { recursive: true, force: true }) }
})

it.effect("jsonl: the log, its index entry and its lock file are gone; the other session's files stay", () =>
  Effect.suspend(() => {
    const home = tempHome()
    const h = { store: Jsonl.layerJsonl({ home }) }
    return Effect.gen(function*() {
      const [gone, kept] = yield* withStore(h, (store) =>
        Effect.gen(function*() {
          const ids = [yield* store.create({ cwd: "/a" }), yield* store.create({ cwd: "/b" })] as const
          for (const id of ids) yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi")]))
          return ids
        }))
      // A list writes the index entries of logs it read.
      yield* withStore(h, (store) => store.list())
      expect(existsSync(join(home, "index", `${gone}.json`))).toBe(true)
      yield* withStore(h, (store) => store.delete(gone))
      expect(readdirSync(join(home, "sessions")).sort()).toStrictEqual([`${kept}.jsonl`])
      expect(readdirSync(join(home, "index")).sort()).toStrictEqual([`${kept}.json`])
    }).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
  }))
