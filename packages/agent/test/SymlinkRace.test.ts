// The file tools while another process swaps a directory inside the session's
// directory with a symbolic link to a directory outside it, as fast as it can:
// no call reads, lists or writes outside, however the calls and the swaps
// interleave. The swapper runs on its own thread, truly in parallel with the
// tools' file-system calls.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Worker } from "node:worker_threads"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { SessionId } from "@turnlog/protocol"
import * as Builtins from "../src/Builtins.js"
import * as Tools from "../src/Tools.js"

const created: Array<string> = []
afterAll(() => {
  for (const dir of created) fs.rmSync(dir, { recursive: true, force: true })
})

const temporaryDirectory = (prefix: string) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  created.push(dir)
  return dir
}

// Swaps `<cwd>/sub` between the real directory and a link to `outside` until told to stop.
const SWAPPER = `
const { workerData } = require("node:worker_threads")
const fs = require("node:fs")
const { cwd, outside, stop } = workerData
const flag = new Int32Array(stop)
const sub = cwd + "/sub", real = cwd + "/sub.real"
let swaps = 0
while (Atomics.load(flag, 0) === 0) {
  try {
    fs.renameSync(sub, real)
    fs.symlinkSync(outside, sub)
    fs.unlinkSync(sub)
    fs.renameSync(real, sub)
    swaps++
  } catch {}
}
try { fs.unlinkSync(sub) } catch {}
try { fs.renameSync(real, sub) } catch {}
require("node:worker_threads").parentPort.postMessage(swaps)
`

const setup = () => {
  const cwd = temporaryDirectory("turnlog-race-")
  const outside = temporaryDirectory("turnlog-race-outside-")
  fs.mkdirSync(path.join(cwd, "sub"))
  fs.writeFileSync(path.join(cwd, "sub", "file.txt"), "inside")
  fs.writeFileSync(path.join(outside, "file.txt"), "OUTSIDE")
  fs.writeFileSync(path.join(outside, "outside-only.txt"), "OUTSIDE")
  const tools = Tools.make(Builtins.tools())
  const context: Tools.ToolContext = { sessionId: SessionId.make("s-race"), callId: "call-1", cwd }
  const run = (name: string, args: unknown) => Effect.either(Effect.flatMap(tools.prepare({ name, arguments: JSON.stringify(args) }, context), (p) => p.run))
  const swapping = <A, E>(body: Effect.Effect<A, E>) =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const stop = new SharedArrayBuffer(4)
        const worker = new Worker(SWAPPER, { eval: true, workerData: { cwd, outside, stop } })
        const swaps = new Promise<number>((resolve, reject) => {
          worker.once("message", resolve)
          worker.once("error", reject)
        })
        return { stop, swaps }
      }),
      () => body,
      ({ stop, swaps }) =>
        Effect.promise(async () => {
          Atomics.store(new Int32Array(stop), 0, 1)
          // The swapper really ran while the tools did.
          expect(await swaps).toBeGreaterThan(0)
        }),
    )
  return { cwd, outside, run, swapping }
}

// Enough calls that the build before this check returned outside content in each test.
const CALLS = { read: 600, list: 1000, write: 300 }

describe("a directory swapped for a link to outside while the tools run", () => {
  it.live("read_file never returns an outside file", () =>
    Effect.gen(function*() {
      const { run, swapping } = setup()
      const results = yield* swapping(
        Effect.forEach(Array.from({ length: CALLS.read }), () => run("read_file", { path: "sub/file.txt" }), { concurrency: 4 }),
      )
      const outsideReads = results.filter((r) => Either.isRight(r) && r.right !== "inside")
      expect(outsideReads.length).toBe(0)
      // Most calls still read the file: the swap leaves the real directory in place most of the time.
      expect(results.filter(Either.isRight).length).toBeGreaterThan(0)
    }))

  it.live("list_files never lists an outside directory", () =>
    Effect.gen(function*() {
      const { run, swapping } = setup()
      const results = yield* swapping(
        Effect.forEach(Array.from({ length: CALLS.list }), () => run("list_files", { path: "sub" }), { concurrency: 4 }),
      )
      const outsideLists = results.filter((r) => Either.isRight(r) && r.right.includes("outside-only.txt"))
      expect(outsideLists.length).toBe(0)
    }))

  it.live("write_file never creates a file or a directory outside", () =>
    Effect.gen(function*() {
      const { cwd, outside, run, swapping } = setup()
      const results = yield* swapping(
        Effect.forEach(
          Array.from({ length: CALLS.write }, (_, i) => i),
          (i) => run("write_file", { path: i % 2 === 0 ? `sub/new-${i}.txt` : `sub/made-${i}/new.txt`, content: "x" }),
          { concurrency: 4 },
        ),
      )
      expect(fs.readdirSync(outside).sort()).toEqual(["file.txt", "outside-only.txt"])
      expect(fs.readFileSync(path.join(outside, "file.txt"), "utf8")).toBe("OUTSIDE")
      // A refused write says why, naming the path; no temporary is left in the directory.
      for (const result of results) {
        if (Either.isLeft(result)) expect(result.left.message).toMatch(/^(path "sub|write_file failed: )/)
      }
      expect(fs.readdirSync(path.join(cwd, "sub")).filter((name) => name.endsWith(".tmp"))).toEqual([])
    }))
})
