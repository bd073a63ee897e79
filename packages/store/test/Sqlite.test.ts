import { describe, expect, it } from "@effect/vitest"
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import type { SqlError } from "@effect/sql/SqlError"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import * as Sqlite from "../src/Sqlite.js"
import { conformance, type Harness, withStore } from "./support/conformance.js"
import { chunkEvent, stamped, userMessage } from "./support/fixtures.js"

const tempHome = () => mkdtempSync(join(tmpdir(), "turnlog-sqlite-"))

conformance("sqlite", () => {
  const home = tempHome()
  return { store: Sqlite.layerSqlite({ home }), cleanup: () => rmSync(home, { recursive: true, force: true }) }
})

/** Runs SQL on the database file behind the store's back, as another program would. */
type Db = (statement: string, params?: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<unknown>, SqlError>

const withHome = <A, E>(f: (home: string, h: Harness, db: Db) => Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    const home = tempHome()
    const db: Db = (statement, params = []) =>
      Effect.scoped(
        Effect.flatMap(
          SqliteClient.make({ filename: join(home, "sessions.db") }).pipe(Effect.provide(Reactivity.layer)),
          (sql) => sql.unsafe(statement, params),
        ),
      )
    return f(home, { store: Sqlite.layerSqlite({ home }) }, db).pipe(
      Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))),
    )
  })

const turn = stamped(1, [{ type: "turn/start", data: {} }, userMessage("hello"), { type: "turn/end", data: { reason: "completed" } }])

const writeSession = (h: Harness) =>
  withStore(h, (store) =>
    Effect.gen(function*() {
      const id = yield* store.create({ cwd: "/p" })
      yield* store.append(id, turn)
      yield* store.flush(id)
      return id
    }))

describe("sqlite: schema, durability settings and refusals", () => {
  it.effect("keeps events in events(session_id, seq, type, time, data) under WAL, schema version 3", () =>
    withHome((_home, h, db) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        expect(yield* db("PRAGMA journal_mode")).toStrictEqual([{ journal_mode: "wal" }])
        expect(yield* db("PRAGMA user_version")).toStrictEqual([{ user_version: 3 }])
        expect(yield* db("SELECT session_id, seq, type, time, data FROM events ORDER BY seq")).toStrictEqual([
          { session_id: id, seq: 1, type: "turn/start", time: turn[0]!.time, data: "{}" },
          { session_id: id, seq: 2, type: "user/message", time: turn[1]!.time, data: JSON.stringify(turn[1]!.data) },
          { session_id: id, seq: 3, type: "turn/end", time: turn[2]!.time, data: '{"reason":"completed"}' },
        ])
        expect(yield* db("SELECT count(*) AS n FROM leases")).toStrictEqual([{ n: 0 }])
        expect(yield* db("SELECT id, version, cwd, title, turns, first_message FROM sessions")).toStrictEqual([
          { id, version: SessionLog.LOG_VERSION, cwd: "/p", title: null, turns: 1, first_message: "hello" },
        ])
      })
    ))

  it.effect("rejects a batch whose first seq is not the stored next seq, inside the transaction", () =>
    withHome((_home, h, db) =>
      withStore(h, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/p" })
          yield* store.append(id, turn)
          yield* store.flush(id)
          // Another writer got seq 4 in behind this store's back.
          yield* db("INSERT INTO events (session_id, seq, type, time, data) VALUES (?, 4, 'turn/start', 't', '{}')", [id])
          yield* store.append(id, [chunkEvent(4)])
          expect(yield* Effect.flip(store.flush(id))).toMatchObject({ _tag: "StaleWriter", sessionId: id, expectedSeq: 5, gotSeq: 4 })
          expect(yield* db("SELECT count(*) AS n FROM events")).toStrictEqual([{ n: 4 }])
          expect(yield* db("SELECT turns, updated_at FROM sessions")).toStrictEqual([{ turns: 1, updated_at: turn[2]!.time }])
        }))
    ))

  it.effect("refuses an unknown event type and damaged data, naming the database, session and seq", () =>
    withHome((home, h, db) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        const file = join(home, "sessions.db")
        yield* db("UPDATE events SET type = 'memory/compact' WHERE seq = 2")
        const unknown = yield* Effect.flip(withStore(h, (store) => store.read(id)))
        expect(unknown).toMatchObject({ _tag: "UnknownEvent", file, sessionId: id, line: 2, type: "memory/compact" })
        expect(unknown.message).toBe(`${file}: session ${id}, event 2: unknown event type "memory/compact" (written by a newer turnlog?)`)
        yield* db("UPDATE events SET type = 'user/message', data = '{\"message\":' WHERE seq = 2")
        expect(yield* Effect.flip(withStore(h, (store) => store.open(id)))).toMatchObject({
          _tag: "SessionCorrupt",
          file,
          sessionId: id,
          line: 2,
          detail: "the event data is not JSON",
        })
        yield* db("UPDATE events SET data = '{\"message\":{}}' WHERE seq = 2")
        expect(yield* Effect.flip(withStore(h, (store) => store.open(id)))).toMatchObject({ _tag: "SessionCorrupt", line: 2 })
        // Nothing was changed by the refused opens.
        expect(yield* db("SELECT count(*) AS n FROM events")).toStrictEqual([{ n: 3 }])
      })
    ))

  it.effect("refuses a newer database schema and a newer session log version", () =>
    withHome((home, h, db) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        const file = join(home, "sessions.db")
        yield* db("UPDATE sessions SET version = 5")
        expect(yield* Effect.flip(withStore(h, (store) => store.read(id)))).toMatchObject({
          _tag: "UnsupportedVersion",
          file,
          found: 5,
          supported: 4,
        })
        // Listed as unreadable, with why; it hides no other session.
        const listed = yield* withStore(h, (store) => store.list())
        expect(listed.sessions).toStrictEqual([])
        expect(listed.unreadable.map((u) => [u.id, u.error._tag])).toStrictEqual([[id, "UnsupportedVersion"]])
        yield* db("PRAGMA user_version = 7")
        const newer = yield* Effect.flip(withStore(h, (store) => store.list()))
        expect(newer).toMatchObject({ _tag: "UnsupportedVersion", file, found: 7, supported: 3, subject: "database schema" })
        expect(newer.message).toBe(`${file}: database schema version 7 was written by a newer turnlog (this build reads version 3)`)
      })
    ))

  it.effect("takes over a lease row whose holder process is gone", () =>
    withHome((_home, h, db) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        yield* db("INSERT INTO leases (session_id, pid, token) VALUES (?, ?, 'gone')", [id, 2 ** 31 - 2])
        const opened = yield* withStore(h, (store) => store.open(id))
        expect(opened.events.length).toBe(3)
        expect(yield* db("SELECT count(*) AS n FROM leases")).toStrictEqual([{ n: 0 }])
      })
    ))

  it.effect("migrates a version 1 database at the first write: its sessions stay, its leases gain the holder's host, its counters are recounted", () =>
    withHome((_home, h, db) =>
      Effect.gen(function*() {
        // The schema as version 1 made it, with one session in it.
        for (
          const statement of [
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL, created_at TEXT NOT NULL, cwd TEXT NOT NULL, title TEXT, updated_at TEXT NOT NULL, turns INTEGER NOT NULL, first_message TEXT)",
            "CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, time TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (session_id, seq))",
            "CREATE TABLE leases (session_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, token TEXT NOT NULL)",
            // A turn count its events do not bear out: the catalog of an older build is not trusted.
            "INSERT INTO sessions VALUES ('old', 1, '2025-01-01T00:00:00.000Z', '/old', NULL, 't', 7, NULL)",
            "INSERT INTO events VALUES ('old', 1, 'turn/start', 't', '{}')",
            "PRAGMA user_version = 1",
          ]
        ) yield* db(statement)
        // Reading changes nothing.
        const read = yield* withStore(h, (store) => store.read("old" as SessionId))
        expect(read.recovery).toStrictEqual({ openTurn: { seq: 1 } })
        expect(yield* db("PRAGMA user_version")).toStrictEqual([{ user_version: 1 }])
        const listedBefore = yield* withStore(h, (store) => store.list())
        expect(listedBefore.sessions.map((s) => [s.id, s.turns, s.title, s.updatedAt])).toStrictEqual([["old", 1, "", "t"]])
        const opened = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const opened = yield* store.open("old" as SessionId)
            expect(yield* db("SELECT host, pid, program FROM leases")).toStrictEqual([{ host: hostname(), pid: process.pid, program: null }])
            return opened
          }))
        expect(opened.events.map((e) => [e.seq, e.type])).toStrictEqual([[1, "turn/start"], [2, "turn/end"]])
        expect(yield* db("PRAGMA user_version")).toStrictEqual([{ user_version: 3 }])
        // Recounted by the migration, then kept by the write that closed the turn.
        expect(yield* db("SELECT turns, summary_seq FROM sessions")).toStrictEqual([{ turns: 1, summary_seq: 1 }])
        const listed = yield* withStore(h, (store) => store.list())
        expect(listed.sessions.map((s) => [s.id, s.turns, s.title, s.updatedAt])).toStrictEqual([["old", 1, "", opened.events[1]!.time]])
      })
    ))

  it.effect("reading an empty database file writes nothing into it: no schema, no write-ahead log", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const file = join(home, "sessions.db")
        writeFileSync(file, "")
        const missing = "20250101T000000-deadbeef" as SessionId
        const listed = yield* withStore(h, (store) => store.list())
        expect(listed).toStrictEqual({ sessions: [], unreadable: [] })
        expect(yield* Effect.flip(withStore(h, (store) => store.read(missing)))).toMatchObject({ _tag: "SessionNotFound" })
        expect(statSync(file).size).toBe(0)
        expect(existsSync(`${file}-wal`)).toBe(false)
      })
    ))
})
