// Letting go of a session between turns: the lease and the open log go, and
// the next prompt opens the session again from the store — with the turn
// another process ran meanwhile in its history. A turn in flight is never let go.
import { describe, expect, it } from "@effect/vitest"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { Deferred, Effect, Fiber, Stream } from "effect"
import { Jsonl } from "@turnlog/store"
import * as C from "./support/chunks.js"
import { setup, tempDir } from "./support/harness.js"

const text = (value: string) => [{ type: "text" as const, text: value }]

describe("release", () => {
  it.scopedLive("gives up the lease and the loop's hold; the next prompt reopens the session with another process's turn in its history", () =>
    Effect.gen(function*() {
      const home = yield* tempDir("turnlog-home-")
      const h = yield* setup([C.reply("One."), C.reply("Three.")], { store: Jsonl.layerJsonl({ home }) })
      yield* h.prompt("first")
      const lock = join(home, "sessions", `${h.id}.lock`)
      expect(existsSync(lock)).toBe(true)

      // Where the log stood: the next seq after the first turn's events.
      const firstTurn = (yield* h.events()).length
      expect(yield* h.loop.release(h.id)).toEqual({ nextSeq: firstTurn + 1 })
      expect(existsSync(lock)).toBe(false)

      // Another process (a loop and store of its own) runs a turn in the session while it is let go.
      const other = yield* setup([C.reply("Two.")], { store: Jsonl.layerJsonl({ home }) })
      expect((yield* other.prompt("second", h.id)).at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      expect(yield* other.loop.release(h.id)).toEqual({ nextSeq: (yield* h.events()).length + 1 })

      const updates = yield* h.prompt("third")
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const sent = (yield* h.requests)[1]!
      expect(sent.messages.map((m) => m.content)).toEqual([
        text("first"),
        text("One."),
        text("second"),
        text("Two."),
        text("third"),
      ])
      const events = yield* h.events()
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
      expect(events.filter((e) => e.type === "turn/end")).toHaveLength(3)
    }))

  it.scopedLive("is refused while a turn runs, and leaves a session it does not hold as it is", () =>
    Effect.gen(function*() {
      const h = yield* setup([{ chunks: [], stall: true }, C.reply("After.")])
      const started = yield* Deferred.make<void>()
      const running = yield* h.loop.prompt(h.id, "wait").pipe(
        Stream.tap(() => Deferred.succeed(started, undefined)),
        Stream.runDrain,
        Effect.fork,
      )
      yield* Deferred.await(started)
      const refused = yield* Effect.flip(h.loop.release(h.id))
      expect(refused).toMatchObject({ _tag: "AgentBusy", sessionId: h.id })
      yield* h.loop.cancel(h.id)
      yield* Fiber.join(running)
      expect(yield* h.loop.release(h.id)).toEqual({ nextSeq: (yield* h.events()).length + 1 })
      // Released twice: nothing more to let go (nothing to say where it stood), and the session goes on from its log.
      expect(yield* h.loop.release(h.id)).toBeUndefined()
      const updates = yield* h.prompt("again")
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      expect((yield* h.events()).filter((e) => e.type === "turn/end").map((e) => e.data)).toEqual([
        { reason: "cancelled" },
        { reason: "completed" },
      ])
    }))
})
