// Deleting a session, the same in every layer: under its lease, everything
// stored of it gone, the other sessions untouched, its id free again.
import { describe, expect, it } from "@effect/vitest"
import { hostname } from "node:os"
import { Effect } from "effect"
import { type Harness, withStore } from "./conformance.js"
import { chunkEvent, stamped, userMessage } from "./fixtures.js"

const turn = (text: string) => stamped(1, [{ type: "turn/start", data: {} }, userMessage(text)])

export const deletion = (name: string, makeHarness: () => Harness) =>
  describe(`${name}: delete`, () => {
    const run = <A, E>(f: (harness: Harness) => Effect.Effect<A, E>) =>
      Effect.suspend(() => {
        const harness = makeHarness()
        return f(harness).pipe(Effect.ensuring(Effect.promise(async () => harness.cleanup?.())))
      })

    it.effect("deletes a stored session whole; the others stay; its id is free again; a second delete is SessionNotFound", () =>
      run((h) =>
        Effect.gen(function*() {
          const [gone, kept] = yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const gone = yield* store.create({ cwd: "/gone", title: "gone" })
              const kept = yield* store.create({ cwd: "/kept", title: "kept" })
              yield* store.append(gone, turn("delete me"))
              yield* store.append(kept, turn("keep me"))
              return [gone, kept] as const
            }))
          yield* withStore(h, (store) =>
            Effect.gen(function*() {
              yield* store.delete(gone)
              expect(yield* Effect.flip(store.read(gone))).toMatchObject({ _tag: "SessionNotFound", sessionId: gone })
              expect(yield* Effect.flip(store.open(gone))).toMatchObject({ _tag: "SessionNotFound", sessionId: gone })
              expect(yield* Effect.flip(store.delete(gone))).toMatchObject({ _tag: "SessionNotFound", sessionId: gone })
              const listed = yield* store.list()
              expect(listed.sessions.map((s) => s.id)).toStrictEqual([kept])
              expect(listed.unreadable).toStrictEqual([])
              expect((yield* store.read(kept)).events.map((e) => e.seq)).toStrictEqual([1, 2])
              // Nothing of the deleted session is left to collide with: the id makes a new session from seq 1.
              expect(yield* store.create({ cwd: "/again", id: gone })).toBe(gone)
              yield* store.append(gone, [chunkEvent(1)])
            }))
          const again = yield* withStore(h, (store) => store.read(gone))
          expect(again.header.cwd).toBe("/again")
          expect(again.events.map((e) => [e.seq, e.type])).toStrictEqual([[1, "assistant/chunk"]])
        })
      ))

    it.effect("a session another store holds is refused naming the holder, and kept; one this store holds is flushed, released and deleted", () =>
      run((h) =>
        withStore(h, (holder) =>
          Effect.gen(function*() {
            const id = yield* holder.create({ cwd: "/p" })
            yield* holder.append(id, turn("held"))
            yield* holder.flush(id)
            const refused = yield* withStore(h, (other) => Effect.flip(other.delete(id)))
            expect(refused).toMatchObject({ _tag: "SessionLocked", sessionId: id, holder: { host: hostname(), pid: process.pid } })
            expect((yield* holder.read(id)).events.map((e) => e.seq)).toStrictEqual([1, 2])
            // Its own session, with an event still buffered: deleted all the same.
            yield* holder.append(id, [chunkEvent(3)])
            yield* holder.delete(id)
            expect(yield* Effect.flip(holder.read(id))).toMatchObject({ _tag: "SessionNotFound" })
            expect((yield* holder.list()).sessions).toStrictEqual([])
            // Its lease was given up: another store takes the id at once.
            expect(yield* withStore(h, (other) => other.create({ cwd: "/q", id }))).toBe(id)
          }))
      ))
  })
