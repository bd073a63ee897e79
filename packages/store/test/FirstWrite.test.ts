// The JSONL layer's first write is `create`'s: the header, published under a
// temporary name and linked into place, then the directory synced and the log
// reopened for appending. When a step after the link fails, `create` fails with
// one sentence and holds nothing (no lease, no id handed out), and the next
// `create` works: a failed create never leaves a session that cannot be written.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { Jsonl } from "../src/index.js"
import { type FileIo, nodeIo } from "../src/internal/FileIo.js"
import { SessionStore } from "../src/SessionStore.js"
import { type Harness, withStore } from "./support/conformance.js"
import { stamped, userMessage } from "./support/fixtures.js"

const turn = (from: number) => stamped(from, [{ type: "turn/start", data: {} }, userMessage("hello"), { type: "turn/end", data: { reason: "completed" } }])

/** A file system whose next directory sync (or reopen for appending) fails once. */
const faults = {
  "its directory sync fails (EIO)": (dir: string, armed: { on: boolean }): FileIo => {
    const dirFds = new Set<number>()
    return {
      ...nodeIo,
      openSync: ((path: string, flags: string, mode?: number) => {
        const fd = nodeIo.openSync(path, flags, mode)
        if (path === dir) dirFds.add(fd)
        return fd
      }) as FileIo["openSync"],
      fsyncSync: (fd) => {
        if (armed.on && dirFds.has(fd)) {
          armed.on = false
          throw Object.assign(new Error("i/o error"), { code: "EIO" })
        }
        nodeIo.fsyncSync(fd)
      },
    }
  },
  "its reopen for appending fails (EMFILE)": (_dir: string, armed: { on: boolean }): FileIo => ({
    ...nodeIo,
    openSync: ((path: string, flags: string, mode?: number) => {
      if (armed.on && flags === "a" && path.endsWith(".jsonl")) {
        armed.on = false
        throw Object.assign(new Error("too many open files"), { code: "EMFILE" })
      }
      return nodeIo.openSync(path, flags, mode)
    }) as FileIo["openSync"],
  }),
}

describe("jsonl: a create whose first write fails after the link", () => {
  it.effect.each(Object.entries(faults))("%s: create fails in one sentence, holds nothing, and the next create works", ([, make]) =>
    Effect.suspend(() => {
      const home = mkdtempSync(join(tmpdir(), "turnlog-first-write-"))
      const dir = join(home, "sessions")
      const armed = { on: true }
      const h: Harness = { store: Layer.scoped(SessionStore, Jsonl.makeJsonl({ home }, make(dir, armed))) }
      return withStore(h, (store) =>
        Effect.gen(function*() {
          const failed = yield* Effect.flip(store.create({ cwd: "/p" }))
          expect(failed).toMatchObject({ _tag: "StoreIOError", operation: "create" })
          expect(failed.message).toMatch(new RegExp(`^create ${dir}/\\S+\\.jsonl: (i/o error|too many open files)$`))
          // No lease is left behind.
          expect(readdirSync(dir).filter((name) => name.includes(".lock"))).toStrictEqual([])
          const id = yield* store.create({ cwd: "/p" })
          yield* store.append(id, turn(1))
          yield* store.flush(id)
          expect((yield* store.read(id)).events.map((e) => e.seq)).toStrictEqual([1, 2, 3])
        })).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
    }))
})
