// The SQLite `list` (what `turnlog --store sqlite sessions` shows) reads the
// catalog (the `sessions` rows, kept in the transaction of the events they
// count), not the events: a row it cannot vouch for — one behind its events —
// is judged by the pass `read` makes and named as unreadable with the reason
// `read` gives; a damaged event under a row that is not behind is found by
// `read` (and `open`, `doctor`), which decode every row. A session whose
// events are gone is not listed with turns it no longer has.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import * as Sqlite from "../src/Sqlite.js"
import { type Harness, withStore } from "./support/conformance.js"
import { stamped, userMessage } from "./support/fixtures.js"

const events = stamped(1, [
  { type: "turn/start", data: {} },
  userMessage("list me"),
  { type: "turn/end", data: { reason: "completed" } },
  { type: "turn/start", data: {} },
  userMessage("second"),
  { type: "turn/end", data: { reason: "completed" } },
])

/** Stores `events`, damages the database with `statements`, then lists the store and reads the session. */
const listDamaged = (statements: ReadonlyArray<string>) =>
  Effect.suspend(() => {
    const home = mkdtempSync(join(tmpdir(), "turnlog-sqlite-list-"))
    const file = join(home, "sessions.db")
    const h: Harness = { store: Sqlite.layerSqlite({ home }) }
    const db = (statement: string) =>
      Effect.scoped(Effect.flatMap(
        SqliteClient.make({ filename: file }).pipe(Effect.provide(Reactivity.layer)),
        (sql) => sql.unsafe(statement),
      ))
    return Effect.gen(function*() {
      const id = yield* withStore(h, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/p" })
          yield* store.append(id, events)
          yield* store.flush(id)
          return id
        }))
      for (const statement of statements) yield* db(statement)
      const listed = yield* withStore(h, (store) => store.list())
      const read = yield* Effect.either(withStore(h, (store) => store.read(id)))
      return {
        listed: listed.sessions.map((s) => [s.id, s.turns, s.title]),
        unreadable: listed.unreadable.map((u) => [u.id, u.error.message]),
        readError: read._tag === "Left" ? read.left.message : undefined,
        readEvents: read._tag === "Right" ? read.right.events.map((e) => e.seq) : undefined,
        id,
        file,
      }
    }).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
  })

describe("sqlite list: a row behind its events is judged by read's pass", () => {
  it.effect("a gap in seq that moves a turn start past the row's counters: unreadable with the reason read gives", () =>
    Effect.gen(function*() {
      // seq 4 (a turn start) moved to 9: past what the row has counted, so the session is loaded, and read finds seq 5 where 4 belongs.
      const result = yield* listDamaged(["UPDATE events SET seq = 9 WHERE seq = 4"])
      const reason = `${result.file}: session ${result.id}, event 5: expected event seq 4, found 5`
      expect(result.readError).toBe(reason)
      expect(result.unreadable).toEqual([[result.id, reason]])
      expect(result.listed).toEqual([])
    }))

  it.effect("a counted event written behind the row's back (no catalog update): listed with the turns the events hold", () =>
    Effect.gen(function*() {
      const result = yield* listDamaged([
        "INSERT INTO events (session_id, seq, type, time, data) SELECT session_id, 7, 'turn/start', time, '{}' FROM events WHERE seq = 6",
      ])
      expect(result.unreadable).toEqual([])
      expect(result.listed).toEqual([[result.id, 3, "list me"]])
    }))
})

describe("sqlite list reads the catalog; read refuses a damaged event under it", () => {
  it.effect.each(
    [
      [
        "an unknown event type",
        ["UPDATE events SET type = 'turn/begin' WHERE seq = 4"],
        (file: string, id: string) => `${file}: session ${id}, event 4: unknown event type "turn/begin" (written by a newer turnlog?)`,
      ],
      [
        "event data that is not JSON",
        ["UPDATE events SET data = '{\"message\":' WHERE seq = 2"],
        (file: string, id: string) => `${file}: session ${id}, event 2: the event data is not JSON`,
      ],
    ] as const,
  )("%s", ([_name, statements, reason]) =>
    Effect.gen(function*() {
      const result = yield* listDamaged(statements)
      expect(result.readError).toBe(reason(result.file, result.id))
      // The catalog row was written with the events it counts; the event rows are not read by list.
      expect(result.unreadable).toEqual([])
      expect(result.listed).toEqual([[result.id, 2, "list me"]])
    }))

  it.effect("event data that is JSON but not an event of its type", () =>
    Effect.gen(function*() {
      const result = yield* listDamaged(['UPDATE events SET data = \'{"reason":"bogus"}\' WHERE seq = 3'])
      expect(result.readError).toMatch(/session .*, event 3: /)
      expect(result.unreadable).toEqual([])
      expect(result.listed).toEqual([[result.id, 2, "list me"]])
    }))

  it.effect("a well-formed session is listed with its turns and title", () =>
    Effect.gen(function*() {
      const result = yield* listDamaged([])
      expect(result.unreadable).toEqual([])
      expect(result.listed).toEqual([[result.id, 2, "list me"]])
    }))

  it.effect("a session row whose events are gone is not listed with the row's turn count (read finds no events)", () =>
    Effect.gen(function*() {
      const result = yield* listDamaged(["DELETE FROM events"])
      expect(result.readEvents).toEqual([])
      // The contract: list shows the sessions that have events (JSONL leaves a header-only log out).
      expect(result.listed).toEqual([])
    }))
})

describe("sqlite read never skips a stored row", () => {
  it.effect("a row with seq 0 is refused (JSONL refuses a line with seq 0), not left out of the session", () =>
    Effect.gen(function*() {
      const result = yield* listDamaged([
        "INSERT INTO events (session_id, seq, type, time, data) SELECT session_id, 0, 'turn/start', time, '{}' FROM events WHERE seq = 1",
      ])
      expect(result.readEvents).toBeUndefined()
      expect(result.readError).toBe(`${result.file}: session ${result.id}, event 0: expected event seq 1, found 0`)
    }))
})
