// The crash test, run against each durable layer by its own test file (so the
// two run side by side). A child process appends and flushes in a loop and is SIGKILLed at
// a random moment — mostly mid-loop, every fourth time while it is loading and
// recovering the previous crash. After each kill the session must load (`read`,
// which changes nothing), every event whose flush had returned must be there
// exactly as written, and earlier events must be untouched. The next child
// repairs what the kill left (a torn tail, an open turn) when it opens.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import type { SessionLog } from "@turnlog/protocol"
import { withoutSettledChunks } from "../../src/internal/EventLine.js"
import { layer, type StoreKind } from "../../src/StoreLayer.js"
import { type Harness, withStore } from "./conformance.js"
import { crashEvent } from "./crashLog.js"
import { stamped, userMessage } from "./fixtures.js"
import { spawnChild, type StoreChild } from "./spawn.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const lastNumber = (lines: ReadonlyArray<string>, word: string): number | undefined => {
  const found = lines.filter((line) => line.startsWith(`${word} `))
  return found.length === 0 ? undefined : Number(found[found.length - 1]!.slice(word.length + 1))
}

/** Where a crash test keeps its sessions: `home` is what the child is given (for PostgreSQL, a schema). */
export interface CrashStorage {
  readonly home: string
  readonly harness: Harness
}

const tempStorage = (kind: StoreKind): CrashStorage => {
  const home = mkdtempSync(join(tmpdir(), `turnlog-crash-${kind}-`))
  return {
    home,
    harness: { store: layer({ kind, home }), cleanup: () => rmSync(home, { recursive: true, force: true }) },
  }
}

export const crashTest = (kind: StoreKind, kills: number, storage: () => CrashStorage = () => tempStorage(kind)) =>
  describe(`${kind}: crash test`, () => {
    it(`keeps every flushed event across ${kills} SIGKILLs`, async () => {
      const { home, harness: h } = storage()
      const read = (id: SessionLog.SessionEvent["time"]) => Effect.runPromise(withStore(h, (store) => store.read(id as never)))
      try {
        const id = await Effect.runPromise(withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/crash" })
            yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("begin")]))
            return id
          })))
        let verified = JSON.stringify((await read(id)).events)
        let verifiedCount = 2
        let killedMidLoop = 0
        let tornTails = 0
        let closedTurns = 0
        const spawnRun = (run: number) => spawnChild(["crash", kind, home, id, String(run)])
        let next: StoreChild | undefined = spawnRun(1)
        for (let run = 1; run <= kills; run++) {
          const child: StoreChild = next!
          try {
            await child.waitFor((line) => line === "ready")
            child.send("go")
            // The next child loads its modules while this one runs; it waits for its own "go".
            next = run < kills ? spawnRun(run + 1) : undefined
            if (run % 4 === 0) {
              await child.waitFor((line) => line === "loading")
              await sleep(Math.random() * 15)
            } else {
              await child.waitFor((line) => line.startsWith("flushed "))
              await sleep(Math.random() * 25)
            }
          } finally {
            await child.kill()
          }
          const start = lastNumber(child.lines, "start")
          const flushed = lastNumber(child.lines, "flushed")
          const loaded = await read(id)
          const events = loaded.events
          if (loaded.recovery.tornTail !== undefined) tornTails++

          // What was there before this run is untouched.
          expect(JSON.stringify(events.slice(0, verifiedCount))).toBe(verified)
          if (start !== undefined) {
            // The child's open closed the turn the previous kill left open.
            const closers = events.slice(verifiedCount, start - 1)
            if (closers.length > 0) {
              closedTurns++
              expect(closers[closers.length - 1]).toMatchObject({ type: "turn/end", data: { reason: "interrupted" } })
              expect(closers.slice(0, -1).every((e) => e.type === "tool/result")).toBe(true)
            }
            // Every event whose flush returned is present, and every event present is as written.
            expect(events.length).toBeGreaterThanOrEqual(flushed ?? start - 1)
            for (let seq = start; seq <= events.length; seq++) {
              expect(events[seq - 1]).toStrictEqual(crashEvent(run, start, seq))
            }
            if (flushed !== undefined) killedMidLoop++
          }
          events.forEach((event, i) => {
            if (event.seq !== i + 1) expect.fail(`seq ${event.seq} at position ${i + 1}`)
          })
          verified = JSON.stringify(events)
          verifiedCount = events.length
        }
        expect(killedMidLoop).toBeGreaterThanOrEqual(Math.floor(kills / 2))

        // The last kill is recovered by an open; afterwards there is nothing left to repair.
        const opened = await Effect.runPromise(withStore(h, (store) => store.open(id)))
        // `open` leaves out the raw chunks of completed steps; the rest is as `read` found it.
        const expected = withoutSettledChunks(JSON.parse(verified) as Array<SessionLog.SessionEvent>)
        expect(opened.events.slice(0, expected.length)).toStrictEqual(expected)
        const final = await read(id)
        expect(final.recovery).toStrictEqual({})
        expect(final.events[final.events.length - 1]!.type).toBe("turn/end")
        process.stderr.write(
          `${kind} crash test: ${kills} kills, ${killedMidLoop} mid-loop, ${tornTails} torn tails, ${closedTurns} open turns closed, ${final.events.length} events\n`,
        )
      } finally {
        await h.cleanup?.()
      }
    }, 300_000)
  })
