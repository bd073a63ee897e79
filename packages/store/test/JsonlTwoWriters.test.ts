// Two stores that both believe they hold one JSONL session (a lease lost in a
// race between three takers of a dead holder's lease, forced here through the
// file seam): the second to append finds bytes it did not write and refuses,
// so the log keeps the first writer's events and stays readable, instead of
// holding one seq twice and refusing every later read.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import { Jsonl, SessionStore } from "../src/index.js"
import { type FileIo, nodeIo } from "../src/internal/FileIo.js"
import { type Harness, withStore } from "./support/conformance.js"
import { chunkEvent, stamped, userMessage } from "./support/fixtures.js"

const build = (home: string, io: FileIo = nodeIo) =>
  Effect.map(Layer.build(Layer.scoped(SessionStore.SessionStore, Jsonl.makeJsonl({ home }, io))), (ctx) =>
    Context.get(ctx, SessionStore.SessionStore))

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
      const lockFile = join(home, "sessions", `${id}.lock`)
      // The holder died: no process has this pid.
      writeFileSync(lockFile, JSON.stringify({ pid: 2 ** 31 - 2, token: "dead@1" }))
      const a = yield* build(home)
      const c = yield* build(home)
      let renamed = false
      const racing: FileIo = {
        ...nodeIo,
        renameSync: (from, to) => {
          // B read the dead holder; before it moves the lock aside, A takes the lease over.
          if (!renamed && from === lockFile) {
            renamed = true
            Effect.runSync(a.open(id))
          }
          nodeIo.renameSync(from, to)
        },
        linkSync: (from, to) => {
          // B finds A's lock in its hands and puts it back; C links its own lock first.
          if (String(from).includes(".stale-")) Effect.runSync(c.open(id))
          nodeIo.linkSync(from, to)
        },
      }
      const b = yield* build(home, racing)
      yield* Effect.either(b.open(id))
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
