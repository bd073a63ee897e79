// Two stores that both believe they hold one JSONL session (its lock file
// removed behind the first holder's back): the second to append finds bytes
// it did not write and refuses,
// so the log keeps the first writer's events and stays readable, instead of
// holding one seq twice and refusing every later read.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import { Jsonl, SessionStore } from "../src/index.js"
import { type FileIo, nodeIo } from "../src/internal/FileIo.js"
import { type Harness, withStore } from "./support/conformance.js"
import { chunkEvent, stamped, userMessage } from "./support/fixtures.js"

const build = (home: string, io: FileIo = nodeIo) =>
  Effect.map(Layer.build(Layer.scoped(SessionStore.SessionStore, Jsonl.makeJsonl({ home }, io))), (ctx) => Context.get(ctx, SessionStore.SessionStore))

describe("jsonl: two writers of one session", () => {
  it.scoped("the second append is refused, naming why, and the log keeps the first writer's events", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), "turnlog-two-writers-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(home, { recursive: true, force: true })))
      const h: Harness = { store: Jsonl.layerJsonl({ home }) }
      const id = yield* withStore(h, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/p" })
          yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi"), { type: "turn/end", data: { reason: "completed" } }]))
          return id
        }))
      const file = join(home, "sessions", `${id}.jsonl`)
      const a = yield* build(home)
      const c = yield* build(home)
      yield* a.open(id)
      // The lock file is removed behind A's back (by hand, or a copy of the
      // home without it): C takes a lease of its own, and both hold the session.
      rmSync(join(home, "sessions", `${id}.lock`))
      yield* c.open(id)
      yield* a.append(id, [chunkEvent(4)])
      yield* a.flush(id)
      yield* c.append(id, [chunkEvent(4)])
      const refused = yield* Effect.either(c.flush(id))
      expect(refused._tag === "Left" ? refused.left.message : "appended").toMatch(
        new RegExp(`^append to ${file}: the log is \\d+ bytes where this process left \\d+: another process is writing this session, so nothing was appended$`),
      )
      const read = yield* withStore(h, (store) => store.read(id))
      expect(read.events.map((e) => e.seq)).toEqual([1, 2, 3, 4])
    }))
})
