// A session created with its events (an import) is stored whole or not at
// all: a write that fails midway leaves no log, no row, no temporary file,
// and the same create then succeeds. A first message of 150 MB is stored
// once (its title used to throw after the events were appended, and the
// buffered batch was written a second time), and titles are read only as far
// as they need, equal to the plain definition.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, FastCheck as fc, Layer } from "effect"
import { MessageId, type SessionId, type SessionLog } from "@turnlog/protocol"
import { Jsonl } from "../src/index.js"
import { type FileIo, nodeIo } from "../src/internal/FileIo.js"
import { nestsDeeperThan } from "../src/internal/Nesting.js"
import { SessionStore } from "../src/SessionStore.js"
import * as Sqlite from "../src/Sqlite.js"
import { titleOf, titleOfText } from "../src/Summary.js"
import { type Harness, withStore } from "./support/conformance.js"
import { stamped, TIME, userMessage } from "./support/fixtures.js"

const ID = "20260101T000000-a11a11a1" as SessionId

const withHome = <A, E>(f: (home: string) => Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    const home = mkdtempSync(join(tmpdir(), "turnlog-whole-"))
    return f(home).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
  })

/** Three turns, each user message about `size` characters: more than one piece of a published log. */
const session = (size: number): Array<SessionLog.SessionEvent> =>
  stamped(
    1,
    [0, 1, 2].flatMap((n) => [
      { type: "turn/start", data: {} } as const,
      userMessage(`${n} `.padEnd(size, "x"), `msg_${n}`),
      { type: "turn/end", data: { reason: "completed" } } as const,
    ]),
  )

/** The real file system, except that the `nth` write to a path matching `failing` fails with ENOSPC while `on`. */
const failingNthWrite = (failing: (path: string) => boolean, nth: number) => {
  const state = { on: true, writes: 0 }
  const paths = new Map<number, string>()
  const io: FileIo = {
    ...nodeIo,
    openSync: ((path: string, flags: string, mode?: number) => {
      const fd = nodeIo.openSync(path, flags, mode)
      paths.set(fd, path)
      return fd
    }) as FileIo["openSync"],
    writeSync: (fd, buffer, offset, length, position) => {
      if (state.on && failing(paths.get(fd) ?? "") && ++state.writes === nth) {
        throw Object.assign(new Error("ENOSPC: injected"), { code: "ENOSPC" })
      }
      return nodeIo.writeSync(fd, buffer, offset, length, position)
    },
  }
  return { io, state }
}

describe("create with events: whole or nothing", () => {
  it.effect("jsonl: a write that fails midway leaves no log and no temporary file; the same create then stores it", () =>
    withHome((home) =>
      Effect.gen(function*() {
        const events = session(700_000)
        const { io, state } = failingNthWrite((path) => path.endsWith(".tmp"), 2)
        const h: Harness = { store: Layer.scoped(SessionStore, Jsonl.makeJsonl({ home }, io)) }
        const failed = yield* Effect.flip(withStore(h, (store) => store.create({ cwd: "/m", id: ID, createdAt: TIME, events })))
        expect(failed.message).toBe(`create ${join(home, "sessions", `${ID}.jsonl`)}: ENOSPC: injected`)
        expect(state.writes).toBe(2)
        expect(readdirSync(join(home, "sessions"))).toStrictEqual([])
        expect(yield* Effect.flip(withStore(h, (store) => store.read(ID)))).toMatchObject({ _tag: "SessionNotFound" })
        expect((yield* withStore(h, (store) => store.list())).sessions).toStrictEqual([])

        state.on = false
        yield* withStore(h, (store) => store.create({ cwd: "/m", id: ID, createdAt: TIME, events }))
        expect((yield* withStore(h, (store) => store.read(ID))).events).toStrictEqual(events)
        expect(readdirSync(join(home, "sessions"))).toStrictEqual([`${ID}.jsonl`])
      })
    ))

  it.effect("sqlite: an insert refused midway leaves no session row and no events; the same create then stores it", () =>
    withHome((home) =>
      Effect.gen(function*() {
        const h: Harness = { store: Sqlite.layerSqlite({ home }) }
        const db = (statement: string) =>
          Effect.scoped(Effect.flatMap(
            SqliteClient.make({ filename: join(home, "sessions.db") }).pipe(Effect.provide(Reactivity.layer)),
            (sql) => sql.unsafe(statement),
          ))
        // The schema exists (another session), then the 7th event of any insert is refused.
        yield* withStore(h, (store) => store.create({ cwd: "/other" }))
        yield* db(`CREATE TRIGGER refuse_seven BEFORE INSERT ON events WHEN NEW.seq = 7 BEGIN SELECT RAISE(ABORT, 'injected'); END`)
        const events = session(100)
        const failed = yield* Effect.flip(withStore(h, (store) => store.create({ cwd: "/m", id: ID, createdAt: TIME, events })))
        expect(failed.message).toBe(`create ${join(home, "sessions.db")}: injected`)
        expect(yield* db(`SELECT count(*) AS n FROM sessions WHERE id = '${ID}'`)).toStrictEqual([{ n: 0 }])
        expect(yield* db(`SELECT count(*) AS n FROM events WHERE session_id = '${ID}'`)).toStrictEqual([{ n: 0 }])

        yield* db("DROP TRIGGER refuse_seven")
        yield* withStore(h, (store) => store.create({ cwd: "/m", id: ID, createdAt: TIME, events }))
        expect((yield* withStore(h, (store) => store.read(ID))).events).toStrictEqual(events)
      })
    ))

  it.effect("jsonl: a 150 MB first message is appended once, titled, listed and read back", () =>
    withHome((home) =>
      Effect.gen(function*() {
        const h: Harness = { store: Jsonl.layerJsonl({ home }) }
        const big = "y".repeat(150 * 1024 * 1024)
        const events = stamped(1, [{ type: "turn/start", data: {} }, userMessage(big), { type: "turn/end", data: { reason: "completed" } }])
        yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/m", id: ID })
            yield* store.append(id, events)
            yield* store.flush(id)
          }))
        const lines = readFileSync(join(home, "sessions", `${ID}.jsonl`), "latin1").split("\n")
        expect(lines.length).toBe(5)
        expect(lines.slice(1, 4).map((l) => (JSON.parse(l) as { seq: number }).seq)).toStrictEqual([1, 2, 3])
        const list = yield* withStore(h, (store) => store.list())
        expect(list.sessions.map((s) => s.title)).toStrictEqual([`${"y".repeat(59)}…`])
      })
    ))
})

describe("titleOf", () => {
  const message = (texts: ReadonlyArray<string>) => ({
    id: MessageId.make("msg_t"),
    role: "user" as const,
    content: texts.map((text) => ({ type: "text" as const, text })),
    source: { kind: "user" as const },
  })
  // Whitespace of every kind, a surrogate pair, letters: runs long enough to cross the pieces titles are read in.
  const text = fc.array(fc.constantFrom("a", "b", " ", "\n", "\t", "\u00a0", "\u2028", "😀", "é"), { maxLength: 9000 })
    .map((chars) => chars.join(""))
  const spaced = fc.tuple(fc.nat(9000), fc.string({ maxLength: 80 })).map(([n, tail]) => " ".repeat(n) + tail)

  it.prop("equals the plain definition over the text blocks joined by a space", [fc.array(fc.oneof(text, spaced), { maxLength: 4 })], ([texts]) => {
    expect(titleOf(message(texts))).toBe(titleOfText(texts.join(" ")))
  })

  it("titles a message of 140 million characters (more than an array can hold one element each)", () => {
    expect(titleOf(message(["z".repeat(140_000_000)]))).toBe(`${"z".repeat(59)}…`)
    expect(titleOf(message([" ".repeat(10_000_000), "short", "\n".repeat(10_000_000)]))).toBe("short")
  })
})

describe("nestsDeeperThan", () => {
  it("counts objects and arrays, not brackets inside strings or escaped quotes", () => {
    expect(nestsDeeperThan("[[[]]]", 3)).toBe(false)
    expect(nestsDeeperThan("[[[[]]]]", 3)).toBe(true)
    expect(nestsDeeperThan(`{"a":{"b":[1]}}`, 3)).toBe(false)
    expect(nestsDeeperThan(`{"a":{"b":[{}]}}`, 3)).toBe(true)
    expect(nestsDeeperThan(`{"a":"[[[[[\\"[[[["}`, 1)).toBe(false)
    expect(nestsDeeperThan(`["\\\\",[[]]]`, 2)).toBe(true)
    expect(nestsDeeperThan("[".repeat(100_000) + "]".repeat(100_000), 1000)).toBe(true)
    expect(nestsDeeperThan("[".repeat(1000) + "]".repeat(1000), 1000)).toBe(false)
  })
})
