// What a fault leaves behind in a JSONL home: nothing that looks like data.
// A lease attempt that fails on a full disk leaves no temporary lock file; a
// torn-tail sidecar is written under a temporary name and only then given its
// `.torn-<n>` name, so a copy that fails (or is killed) leaves no sidecar
// that looks complete, and the log keeps its tail for the next open.
import { describe, expect, it } from "@effect/vitest"
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { Jsonl } from "../src/index.js"
import { type FileIo, nodeIo } from "../src/internal/FileIo.js"
import { SessionStore } from "../src/SessionStore.js"
import { type Harness, withStore } from "./support/conformance.js"
import { stamped, userMessage } from "./support/fixtures.js"

const fault = (code: string) => Object.assign(new Error(`${code}: injected`), { code })

/** The real file system, except that writes to paths matching `failing` fail with `code` while `on` says so. */
const failingWrites = (code: string, failing: (path: string) => boolean) => {
  const state = { on: true }
  const paths = new Map<number, string>()
  const io: FileIo = {
    ...nodeIo,
    openSync: ((path: string, flags: string, mode?: number) => {
      const fd = nodeIo.openSync(path, flags, mode)
      paths.set(fd, path)
      return fd
    }) as FileIo["openSync"],
    writeSync: (fd, buffer, offset, length, position) => {
      if (state.on && failing(paths.get(fd) ?? "")) throw fault(code)
      return nodeIo.writeSync(fd, buffer, offset, length, position)
    },
    writeStringSync: (fd, text) => {
      if (state.on && failing(paths.get(fd) ?? "")) throw fault(code)
      return nodeIo.writeStringSync(fd, text)
    },
  }
  return { io, state }
}

const withHome = <A, E>(f: (home: string, dir: string) => Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    const home = mkdtempSync(join(tmpdir(), "turnlog-leftovers-"))
    return f(home, join(home, "sessions")).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
  })

const written = (h: Harness) =>
  withStore(h, (store) =>
    Effect.gen(function*() {
      const id = yield* store.create({ cwd: "/p" })
      yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi"), { type: "turn/end", data: { reason: "completed" } }]))
      return id
    }))

describe("jsonl: leftovers after faults", () => {
  it.effect("a lease attempt whose lock file cannot be written leaves no temporary behind, each time", () =>
    withHome((home, dir) =>
      Effect.gen(function*() {
        const id = yield* written({ store: Jsonl.layerJsonl({ home }) })
        const { io, state } = failingWrites("ENOSPC", (path) => path.includes(".lock."))
        const h: Harness = { store: Layer.scoped(SessionStore, Jsonl.makeJsonl({ home }, io)) }
        for (let attempt = 0; attempt < 3; attempt++) {
          const failed = yield* Effect.flip(withStore(h, (store) => store.open(id)))
          expect(failed.message).toMatch(new RegExp(`^take the lease ${dir}/${id}\\.lock: ENOSPC: injected$`))
        }
        expect(readdirSync(dir).sort()).toStrictEqual([`${id}.jsonl`])
        state.on = false
        const opened = yield* withStore(h, (store) => store.open(id))
        expect(opened.events.length).toBe(3)
        expect(readdirSync(dir).sort()).toStrictEqual([`${id}.jsonl`])
      })
    ))

  it.effect("a torn tail whose copy fails leaves no sidecar and stays in the log; the next open keeps it whole", () =>
    withHome((home, dir) =>
      Effect.gen(function*() {
        const id = yield* written({ store: Jsonl.layerJsonl({ home }) })
        const file = join(dir, `${id}.jsonl`)
        const torn = '{"seq":4,"time":"t","type":"turn/st'
        appendFileSync(file, torn)
        const before = readFileSync(file, "utf8")
        const { io, state } = failingWrites("EIO", (path) => path.includes(".torn"))
        const h: Harness = { store: Layer.scoped(SessionStore, Jsonl.makeJsonl({ home }, io)) }
        const failed = yield* Effect.flip(withStore(h, (store) => store.open(id)))
        expect(failed.message).toBe(`cut the torn tail of ${file}: EIO: injected`)
        expect(readdirSync(dir).sort()).toStrictEqual([`${id}.jsonl`])
        expect(readFileSync(file, "utf8")).toBe(before)
        state.on = false
        const opened = yield* withStore(h, (store) => store.open(id))
        expect(opened.recovery.tornTail).toStrictEqual({ sidecar: `${file}.torn-1`, bytes: torn.length, line: 5 })
        expect(readFileSync(`${file}.torn-1`, "utf8")).toBe(torn)
        expect(readdirSync(dir).sort()).toStrictEqual([`${id}.jsonl`, `${id}.jsonl.torn-1`])
      })
    ))
})
