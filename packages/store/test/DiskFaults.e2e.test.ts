// A full disk, a read-only file system and a log or database removed under an
// open store fail the flush (or the open) with one sentence naming the file, in
// every durable store — never a hang or a crash — and once the disk has room
// again the same session continues with nothing lost and nothing repeated.
// The disk is real: a 1 MiB tmpfs mounted for the test (this needs root).
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { StoreLayer } from "../src/index.js"
import type { Service } from "../src/SessionStore.js"
import { type Harness, withStore } from "./support/conformance.js"
import { stamped, userMessage } from "./support/fixtures.js"

const isRoot = process.getuid?.() === 0

/** A fresh 1 MiB tmpfs, unmounted (and its mount point removed) when `f` ends. */
const withTmpfs = <A, E>(f: (dir: string) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const dir = mkdtempSync(join(tmpdir(), "turnlog-tmpfs-"))
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir])
      return dir
    }),
    f,
    (dir) =>
      Effect.sync(() => {
        execFileSync("umount", ["-l", dir])
        rmSync(dir, { recursive: true, force: true })
      }),
  )

/** Fills the file system of `dir` to the last byte. */
const fill = (dir: string): void => {
  try {
    writeFileSync(join(dir, "filler"), Buffer.alloc(2 << 20))
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOSPC") throw error
  }
}

const turn = (from: number, text: string) => stamped(from, [{ type: "turn/start", data: {} }, userMessage(text)])

/** A new session with its first turn ("hello") appended, not yet flushed. */
const helloSession = (store: Service) =>
  Effect.gen(function*() {
    const id = yield* store.create({ cwd: "/p" })
    yield* store.append(id, turn(1, "hello"))
    return id
  })
const big = "z".repeat(100_000)

const stores = [
  {
    kind: "jsonl",
    file: (home: string, id: SessionId) => join(home, "sessions", `${id}.jsonl`),
    full: "ENOSPC: no space left on device, write",
    removed: "the log was removed while the session was open for writing, so nothing was appended",
  },
  {
    kind: "sqlite",
    file: (home: string) => join(home, "sessions.db"),
    full: "database or disk is full",
    removed: "the database file was removed or replaced while the store had it open, so nothing was written",
  },
] as const

describe.skipIf(!isRoot).each(stores)("$kind: disk faults", ({ file, full, kind, removed }) => {
  it.effect("a full disk fails the flush with one sentence, and the session continues once there is room", () =>
    withTmpfs((home) =>
      Effect.gen(function*() {
        const h: Harness = { store: StoreLayer.layer({ kind, home }) }
        const id = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* helloSession(store)
            yield* store.flush(id)
            fill(home)
            yield* store.append(id, [...stamped(3, [{ type: "turn/end", data: { reason: "completed" } }]), ...turn(4, big)])
            const failed = yield* Effect.flip(store.flush(id))
            expect(failed).toMatchObject({ _tag: "StoreIOError", path: file(home, id), operation: "append to" })
            expect(failed.message).toBe(`append to ${file(home, id)}: ${full}`)
            // Room again: the same flush goes through, once.
            rmSync(join(home, "filler"))
            yield* store.flush(id)
            return id
          }))
        const loaded = yield* withStore(h, (store) => store.open(id))
        expect(loaded.events.map((e) => [e.seq, e.type])).toStrictEqual([
          [1, "turn/start"],
          [2, "user/message"],
          [3, "turn/end"],
          [4, "turn/start"],
          [5, "user/message"],
          [6, "turn/end"],
        ])
        expect(loaded.events[4]).toStrictEqual(turn(4, big)[1])
      })
    ))

  it.effect("a file system that became read-only refuses the open in one sentence and changes nothing", () =>
    withTmpfs((home) =>
      Effect.gen(function*() {
        const h: Harness = { store: StoreLayer.layer({ kind, home }) }
        const id = yield* withStore(h, helloSession)
        execFileSync("mount", ["-o", "remount,ro", home])
        const refused = yield* Effect.flip(withStore(h, (store) => store.open(id)))
        expect(refused._tag).toBe("StoreIOError")
        expect(refused.message).toMatch(
          kind === "jsonl"
            ? new RegExp(`^take the lease ${home}/sessions/${id}\\.lock: EROFS: read-only file system, open '[^']+\\.tmp'$`)
            : new RegExp(`^open ${home}/sessions\\.db: unable to open database file$`),
        )
        execFileSync("mount", ["-o", "remount,rw", home])
        const opened = yield* withStore(h, (store) => store.open(id))
        expect(opened.events.map((e) => e.type)).toStrictEqual(["turn/start", "user/message", "turn/end"])
      })
    ))

  it.effect("a log or database removed while the store has it open fails the flush instead of writing where nobody reads", () =>
    Effect.suspend(() => {
      const home = mkdtempSync(join(tmpdir(), "turnlog-removed-"))
      const h: Harness = { store: StoreLayer.layer({ kind, home }) }
      return withStore(h, (store) =>
        Effect.gen(function*() {
          const id = yield* helloSession(store)
          yield* store.flush(id)
          rmSync(file(home, id))
          yield* store.append(id, stamped(3, [{ type: "turn/end", data: { reason: "completed" } }]))
          const failed = yield* Effect.flip(store.flush(id))
          expect(failed.message).toBe(`append to ${file(home, id)}: ${removed}`)
          yield* Effect.ignore(store.release(id))
        })).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
    }))
})
