// A fork at a turn in the memory, JSONL and SQLite layers: the new session's log
// is the original's events up to the turn (seq, time and data as they were),
// then the `session/fork` event; the original is unchanged; a turn not ended is refused.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Either } from "effect"
import { SessionLog } from "@turnlog/protocol"
import { Fork, Jsonl, Memory, SessionStore } from "../src/index.js"
import * as Sqlite from "../src/Sqlite.js"
import { type Harness, withStore } from "./support/conformance.js"
import { stamped, userMessage } from "./support/fixtures.js"

const turn = (text: string): ReadonlyArray<SessionLog.EventInput> => [
  { type: "turn/start", data: {} },
  userMessage(text, `msg_${text}`),
  { type: "turn/end", data: { reason: "completed" } },
]

// Turn 1, a mode set between turns, turn 2, then turn 3 still open.
const history = stamped(1, [
  ...turn("one"),
  { type: "session/mode", data: { mode: "auto-edit" } },
  ...turn("two"),
  { type: "turn/start", data: {} },
  userMessage("three", "msg_three"),
])

const harnesses: ReadonlyArray<[string, () => Harness]> = [
  ["memory", () => ({ store: Memory.layerMemoryWith(Memory.makeStorage()) })],
  ["jsonl", () => {
    const home = mkdtempSync(join(tmpdir(), "turnlog-fork-"))
    return { store: Jsonl.layerJsonl({ home }), cleanup: () => rmSync(home, { recursive: true, force: true }) }
  }],
  ["sqlite", () => {
    const home = mkdtempSync(join(tmpdir(), "turnlog-fork-"))
    return { store: Sqlite.layerSqlite({ home }), cleanup: () => rmSync(home, { recursive: true, force: true }) }
  }],
]

const withHarness = <A, E>(make: () => Harness, f: (store: SessionStore.Service) => Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    const harness = make()
    return withStore(harness, f).pipe(Effect.ensuring(Effect.promise(async () => harness.cleanup?.())))
  })

for (const [name, make] of harnesses) {
  describe(`${name}: fork`, () => {
    it.effect("at turn 1: turn 1 and what was set before turn 2, then where it came from; cwd and title kept", () =>
      withHarness(make, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/project", title: "Original" })
          yield* store.append(id, history)
          yield* store.flush(id)
          const forked = yield* Fork.fork(store, id, { at: 1 })
          expect(forked.turn).toBe(1)
          const copy = yield* store.read(forked.id)
          expect(copy.header).toMatchObject({ cwd: "/project", title: "Original", version: SessionLog.LOG_VERSION })
          expect(copy.events.slice(0, 4)).toStrictEqual(history.slice(0, 4))
          expect(copy.events.map((e) => [e.seq, e.type])).toStrictEqual([
            [1, "turn/start"],
            [2, "user/message"],
            [3, "turn/end"],
            [4, "session/mode"],
            [5, "session/fork"],
          ])
          expect(copy.events[4]!.data).toStrictEqual({ forkedFrom: { session: id, turn: 1 } })
          expect(SessionLog.forkedFromOf(copy.events)).toStrictEqual({ session: id, turn: 1 })
          expect(SessionLog.modeOf(copy.events)).toBe("auto-edit")
          // The original is as it was.
          expect((yield* store.read(id)).events).toStrictEqual(history)
          // The fork is released: it opens for writing, and continues after the fork event.
          const opened = yield* store.open(forked.id)
          expect(opened.recovery).toStrictEqual({})
          yield* store.append(forked.id, stamped(6, turn("four")))
          yield* store.flush(forked.id)
          expect((yield* store.read(forked.id)).events.map((e) => e.seq)).toStrictEqual([1, 2, 3, 4, 5, 6, 7, 8])
        })))

    it.effect("by default at the last ended turn: the open turn 3 is not copied; turn 3 and 0 are refused naming the range", () =>
      withHarness(make, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/project" })
          yield* store.append(id, history)
          yield* store.flush(id)
          const forked = yield* Fork.fork(store, id)
          expect(forked.turn).toBe(2)
          const copy = yield* store.read(forked.id)
          expect(copy.events.slice(0, 7)).toStrictEqual(history.slice(0, 7))
          expect(copy.events.slice(7).map((e) => [e.seq, e.type, e.data])).toStrictEqual([
            [8, "session/fork", { forkedFrom: { session: id, turn: 2 } }],
          ])
          for (const at of [3, 0]) {
            const refused = yield* Effect.flip(Fork.fork(store, id, { at }))
            expect(refused.message).toBe(`turn ${at} is not a turn of session ${id}: give 1 to 2`)
          }
          const empty = yield* store.create({ cwd: "/project" })
          expect((yield* Effect.flip(Fork.fork(store, empty))).message).toBe(`session ${empty} has no ended turn to fork`)
        })))
  })
}

describe("cut", () => {
  it("a fork of a fork names its parent, not the first original", () => {
    const events = stamped(1, [
      ...turn("one"),
      { type: "session/fork", data: { forkedFrom: { session: "a" as never, turn: 1 } } },
      ...turn("two"),
      { type: "session/fork", data: { forkedFrom: { session: "b" as never, turn: 2 } } },
    ])
    expect(SessionLog.forkedFromOf(events)).toStrictEqual({ session: "b", turn: 2 })
    const taken = Fork.cut(events, 1)
    expect(Either.map(taken, (t) => t.events.map((e) => e.type))).toStrictEqual(
      Either.right(["turn/start", "user/message", "turn/end", "session/fork"]),
    )
  })
})
