// The conformance cases of `create` with a chosen id and first events (an
// import): stored whole in one step, refused whole when the seqs or the id
// are wrong. Part of the suite every layer runs (see `conformance`).
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { type Harness, withStore } from "./conformance.js"
import { stamped, TIME, userMessage } from "./fixtures.js"

const seqs = (events: ReadonlyArray<{ readonly seq: number }>) => events.map((e) => e.seq)

export const createConformance = (run: <A, E>(f: (harness: Harness) => Effect.Effect<A, E>) => Effect.Effect<A, E>) => {
  it.effect("create with events stores the session whole in one step: listed, read back and continued", () =>
    run((h) =>
      Effect.gen(function*() {
        const chosen = "20250101T000000-1a2b3c4d" as SessionId
        const events = stamped(1, [{ type: "turn/start", data: {} }, userMessage("moved here"), { type: "turn/end", data: { reason: "completed" } }])
        yield* withStore(h, (store) =>
          Effect.gen(function*() {
            expect(yield* store.create({ cwd: "/m", id: chosen, createdAt: TIME, events })).toBe(chosen)
            // Written, not buffered: another store (another process) reads it at once.
            expect((yield* withStore(h, (other) => other.read(chosen))).events).toStrictEqual(events)
            // The writer goes on from the last event.
            yield* store.append(chosen, stamped(4, [{ type: "turn/start", data: {} }]))
            yield* store.release(chosen)
          }))
        const list = yield* withStore(h, (store) => store.list())
        expect(list.sessions.map((s) => [s.id, s.title, s.turns, s.status])).toStrictEqual([[chosen, "moved here", 2, "interrupted"]])
        expect(seqs((yield* withStore(h, (store) => store.read(chosen))).events)).toStrictEqual([1, 2, 3, 4])
      })
    ))

  it.effect("create refuses events that do not start at seq 1 or have a gap, storing nothing", () =>
    run((h) =>
      withStore(h, (store) =>
        Effect.gen(function*() {
          const chosen = "20250101T000000-1a2b3c4e" as SessionId
          const events = stamped(1, [{ type: "turn/start", data: {} }, userMessage("a"), userMessage("b")])
          const gap = yield* Effect.flip(store.create({ cwd: "/m", id: chosen, events: [events[0]!, events[2]!] }))
          expect(gap).toMatchObject({ _tag: "StaleWriter", expectedSeq: 2, gotSeq: 3 })
          const late = yield* Effect.flip(store.create({ cwd: "/m", id: chosen, events: events.slice(1) }))
          expect(late).toMatchObject({ _tag: "StaleWriter", expectedSeq: 1, gotSeq: 2 })
          expect(yield* Effect.flip(store.read(chosen))).toMatchObject({ _tag: "SessionNotFound" })
          // Nothing was taken either: the id is free.
          expect(yield* store.create({ cwd: "/m", id: chosen, events })).toBe(chosen)
        }))
    ))

  it.effect("create refuses a chosen id that is not a session id every store serves, storing nothing", () =>
    run((h) =>
      withStore(h, (store) =>
        Effect.gen(function*() {
          const long = "a".repeat(201)
          for (
            const [id, why] of [
              ["../../tmp/x", 'letters, digits, ".", "_" and "-", not first'],
              ["a/b", 'letters, digits, ".", "_" and "-", not first'],
              ["-rf", 'letters, digits, ".", "_" and "-", not first'],
              ["", 'letters, digits, ".", "_" and "-", not first'],
              [long, "at most 200 characters"],
            ] as const
          ) {
            const refused = yield* Effect.flip(store.create({ cwd: "/m", id: id as SessionId, events: stamped(1, [{ type: "turn/start", data: {} }]) }))
            expect(refused.message).toBe(`create session "${id.length > 40 ? `${id.slice(0, 40)}…` : id}": not a session id (${why})`)
          }
          expect(yield* store.list()).toStrictEqual({ sessions: [], unreadable: [] })
          // 200 characters is an id.
          const longest = "b".repeat(200) as SessionId
          expect(yield* store.create({ cwd: "/m", id: longest, events: stamped(1, [{ type: "turn/start", data: {} }]) })).toBe(longest)
          expect((yield* store.read(longest)).events.length).toBe(1)
        }))
    ))
}
