// A process killed (SIGKILL) while it copies a torn tail aside leaves a
// half-written temporary file beside the log. `recovery` (what `doctor`
// reports) names it and its size (and a copy an earlier build left under its
// own name); the next open removes them, cuts the tail into a complete
// sidecar, and leaves nothing else behind.
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { Jsonl } from "../src/index.js"
import { withStore } from "./support/conformance.js"
import { stamped, userMessage } from "./support/fixtures.js"

const killer = fileURLToPath(new URL("./support/killMidCopy.ts", import.meta.url))

describe("jsonl: a torn tail's copy killed midway", () => {
  it.effect("is reported as a leftover, then removed by the next open, which keeps the whole tail", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), "turnlog-torn-killed-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(home, { recursive: true, force: true })))
      const h = { store: Jsonl.layerJsonl({ home }) }
      const id = yield* withStore(h, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/p" })
          yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi"), { type: "turn/end", data: { reason: "completed" } }]))
          return id
        }))
      const dir = join(home, "sessions")
      const file = join(dir, `${id}.jsonl`)
      // A torn tail of 8 MiB: an unfinished line, no newline.
      const torn = `{"seq":4,"time":"t","type":"user/message","data":{"text":"${"t".repeat(8 * 1024 * 1024)}`
      appendFileSync(file, torn)
      const logged = readFileSync(file)

      const child = spawnSync(process.execPath, ["--import", "tsx", killer, home, id], { encoding: "utf8" })
      expect(child.signal, child.stderr).toBe("SIGKILL")
      const leftover = join(dir, `.${id}.jsonl.torn.tmp`)
      expect(statSync(leftover).size).toBe(torn.length / 2)
      // The log was not cut: the tail is still only there.
      expect(readFileSync(file).equals(logged)).toBe(true)

      // And a copy an earlier build (which named its copies by pid) left of the same tail.
      const older = join(dir, `.${id}.jsonl.torn.4242-0badf00d.tmp`)
      writeFileSync(older, torn.slice(0, 1000))

      const recovery = yield* withStore(h, (store) => store.recovery(id))
      expect(recovery).toStrictEqual({
        tornTail: { bytes: torn.length, line: 5 },
        leftovers: [{ file: leftover, bytes: torn.length / 2 }, { file: older, bytes: 1000 }],
      })

      const opened = yield* withStore(h, (store) => store.open(id))
      expect(opened.recovery.tornTail).toStrictEqual({ sidecar: `${file}.torn-1`, bytes: torn.length, line: 5 })
      expect(readFileSync(`${file}.torn-1`, "utf8")).toBe(torn)
      expect(readdirSync(dir).filter((f) => !f.endsWith(".lock")).sort()).toStrictEqual([`${id}.jsonl`, `${id}.jsonl.torn-1`])
      expect(yield* withStore(h, (store) => store.recovery(id))).toStrictEqual({})
    }).pipe(Effect.scoped))
})
