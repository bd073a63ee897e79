// The JSONL layer's first write can be retried when it fails after its file was
// linked into place: the retry completes the publish (it does not publish again,
// nor append the published events twice) and writes what was appended since.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { Jsonl } from "../src/index.js"
import { type FileIo, nodeIo } from "../src/internal/FileIo.js"
import { SessionStore } from "../src/SessionStore.js"
import { type Harness, withStore } from "./support/conformance.js"
import { chunkEvent, stamped, userMessage } from "./support/fixtures.js"

const tempHome = () => mkdtempSync(join(tmpdir(), "turnlog-first-write-"))
const turn = (from: number) =>
  stamped(from, [{ type: "turn/start", data: {} }, userMessage("hello"), { type: "turn/end", data: { reason: "completed" } }])
const eio = () => Object.assign(new Error("i/o error"), { code: "EIO" })

describe("jsonl: a first write whose directory sync fails", () => {
  it.effect("a first write that fails after the log was linked into place can be retried", () =>
    Effect.suspend(() => {
      const home = tempHome()
      const dir = join(home, "sessions")
      let failDirSync = false
      const dirFds = new Set<number>()
      const io: FileIo = {
        ...nodeIo,
        openSync: ((path: string, flags: string, mode?: number) => {
          const fd = nodeIo.openSync(path, flags, mode)
          if (path === dir) dirFds.add(fd)
          return fd
        }) as FileIo["openSync"],
        closeSync: (fd) => {
          dirFds.delete(fd)
          nodeIo.closeSync(fd)
        },
        fsyncSync: (fd) => {
          if (failDirSync && dirFds.has(fd)) {
            failDirSync = false
            throw eio()
          }
          nodeIo.fsyncSync(fd)
        },
      }
      const h: Harness = { store: Layer.scoped(SessionStore, Jsonl.makeJsonl({ home }, io)) }
      return withStore(h, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/p" })
          yield* store.append(id, turn(1))
          // The directory sync after the link fails once (EIO): the flush reports it.
          failDirSync = true
          expect(yield* Effect.flip(store.flush(id))).toMatchObject({ _tag: "StoreIOError" })
          // The disk is fine again: retrying the flush, and writing on, must work.
          const retry = yield* Effect.either(store.flush(id))
          yield* store.append(id, turn(4))
          const next = yield* Effect.either(store.flush(id))
          expect({ retry: retry._tag, retryError: retry._tag === "Left" ? retry.left.message : undefined, next: next._tag })
            .toStrictEqual({ retry: "Right", retryError: undefined, next: "Right" })
          const file = join(dir, `${id}.jsonl`)
          expect(readFileSync(file, "utf8").trimEnd().split("\n").length).toBe(7)
          expect((yield* store.read(id)).events.map((e) => e.seq)).toStrictEqual([1, 2, 3, 4, 5, 6])
        })
      ).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
    }))
})

describe("jsonl: a first write whose reopen for appending fails", () => {
  it.effect("a first write whose reopen for appending fails (EMFILE) can be retried", () =>
    Effect.suspend(() => {
      const home = tempHome()
      let failAppendOpen = false
      const io: FileIo = {
        ...nodeIo,
        openSync: ((path: string, flags: string, mode?: number) => {
          if (failAppendOpen && flags === "a" && path.endsWith(".jsonl")) {
            failAppendOpen = false
            throw Object.assign(new Error("too many open files"), { code: "EMFILE" })
          }
          return nodeIo.openSync(path, flags, mode)
        }) as FileIo["openSync"],
      }
      const h: Harness = { store: Layer.scoped(SessionStore, Jsonl.makeJsonl({ home }, io)) }
      return withStore(h, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/p" })
          yield* store.append(id, turn(1))
          failAppendOpen = true
          expect(yield* Effect.flip(store.flush(id))).toMatchObject({ _tag: "StoreIOError" })
          // More events before the retry: the retry carries them beside the published ones.
          yield* store.append(id, turn(4))
          const retry = yield* Effect.either(store.flush(id))
          expect(retry._tag === "Left" ? retry.left.message : "flushed").toBe("flushed")
          expect((yield* store.read(id)).events.map((e) => e.seq)).toStrictEqual([1, 2, 3, 4, 5, 6])
        })
      ).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
    }))
})
