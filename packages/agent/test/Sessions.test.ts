// Sessions as the loop holds them: which model a session talks to, loading a
// stored session (in this process or after a restart), and refused models.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Stream } from "effect"
import { SessionId } from "@turnlog/protocol"
import * as AgentLoop from "../src/AgentLoop.js"
import * as C from "./support/chunks.js"
import { Jsonl } from "@turnlog/store"
import { setup, tempDir } from "./support/harness.js"

describe("models", () => {
  it.effect("`<provider>/<model>` splits at the first slash", () =>
    Effect.gen(function*() {
      expect(yield* AgentLoop.parseModel("openrouter/anthropic/claude-sonnet")).toEqual({
        provider: "openrouter",
        model: "anthropic/claude-sonnet",
      })
      for (const bad of ["claude", "/claude", "anthropic/"]) {
        const error = yield* Effect.flip(AgentLoop.parseModel(bad))
        expect(error.message).toBe(`model "${bad}": expected "<provider>/<model>"`)
      }
    }))

  it.scopedLive("a session's model overrides the default; a bad one is refused at create", () =>
    Effect.gen(function*() {
      const h = yield* setup([C.reply("a"), C.reply("b")])
      const other = yield* h.loop.createSession({ cwd: h.cwd, model: "other/model-2" })
      yield* h.prompt("hi", other)
      yield* h.prompt("hi")
      expect((yield* h.requests).map((r) => `${r.provider}/${r.model}`)).toEqual([
        "other/model-2",
        "scripted/test-model",
      ])
      const refused = yield* Effect.either(h.loop.createSession({ cwd: h.cwd, model: "nomodel" }))
      expect(Either.isLeft(refused) && refused.left._tag).toBe("InvalidModel")
    }))

  it.scopedLive("the layer refuses a bad default model", () =>
    Effect.gen(function*() {
      const built = yield* Effect.either(setup([], { config: { model: "no-slash" } }))
      expect(Either.isLeft(built) && built.left).toEqual(
        new AgentLoop.InvalidModel({ model: "no-slash", detail: `expected "<provider>/<model>"` }),
      )
    }))
})

describe("load", () => {
  it.scopedLive("a session stored by an earlier process continues from its log, with the model asked for", () =>
    Effect.gen(function*() {
      const home = yield* tempDir("turnlog-home-")
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const h = yield* setup([C.reply("One.")], { store: Jsonl.layerJsonl({ home }) })
        yield* h.prompt("first")
        return h.id
      }))
      const h = yield* setup([C.reply("Two.")], { store: Jsonl.layerJsonl({ home }) })
      const loaded = yield* h.loop.load(first, { model: "later/model-3" })
      expect(loaded.recovery).toEqual({})
      expect(loaded.events.at(-1)!.data).toEqual({ reason: "completed" })
      const updates = yield* h.prompt("second", first)
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const request = (yield* h.requests)[0]!
      expect(`${request.provider}/${request.model}`).toBe("later/model-3")
      expect(request.messages.map((m) => m.content)).toEqual([
        [{ type: "text", text: "first" }],
        [{ type: "text", text: "One." }],
        [{ type: "text", text: "second" }],
      ])
      // seq continues where the earlier process stopped.
      const events = yield* h.events(first)
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
    }))

  it.scopedLive("an unknown session is the store's SessionNotFound", () =>
    Effect.gen(function*() {
      const h = yield* setup([])
      const error = yield* Effect.flip(h.loop.load(SessionId.make("20250101T000000-deadbeef")))
      expect(error._tag).toBe("SessionNotFound")
    }))

  it.scopedLive("two prompts racing for a session not loaded yet: one turn runs, the other is AgentBusy", () =>
    Effect.gen(function*() {
      const home = yield* tempDir("turnlog-home-")
      const stored = yield* Effect.scoped(Effect.gen(function*() {
        const h = yield* setup([C.reply("One.")], { store: Jsonl.layerJsonl({ home }) })
        yield* h.prompt("first")
        return h.id
      }))
      const h = yield* setup([{ chunks: [], stall: true }, { chunks: [], stall: true }], { store: Jsonl.layerJsonl({ home }), openDelayMs: 20 })
      const run = (text: string) => Effect.either(Stream.runCollect(h.loop.prompt(stored, text)))
      const a = yield* Effect.fork(run("a"))
      const b = yield* Effect.fork(run("b"))
      // The refused one ends at once; the other streams until its reader is interrupted.
      const refused = yield* Effect.raceFirst(Fiber.join(a), Fiber.join(b))
      expect(Either.isLeft(refused) && refused.left._tag).toBe("AgentBusy")
      yield* Fiber.interrupt(a)
      yield* Fiber.interrupt(b)
      const events = yield* h.events(stored)
      expect(events.filter((e) => e.type === "turn/start")).toHaveLength(2)
      expect(events.at(-1)!.data).toEqual({ reason: "cancelled" })
      expect(yield* h.requests).toHaveLength(1)
    }))
})
