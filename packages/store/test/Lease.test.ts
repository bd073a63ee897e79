// One writer per session across processes: a second process is refused with
// the holder's pid, and a holder that was killed leaves a lease that is taken over.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { StoreLayer } from "../src/index.js"
import { type Harness, withStore } from "./support/conformance.js"
import { stamped, userMessage } from "./support/fixtures.js"
import { spawnChild } from "./support/spawn.js"

describe.each(["jsonl", "sqlite"] as const)("%s: one writer across processes", (kind) => {
  it("refuses a second writer with SessionLocked naming the holder, and takes over once the holder is killed", async () => {
    const home = mkdtempSync(join(tmpdir(), `turnlog-lease-${kind}-`))
    const h: Harness = { store: StoreLayer.layer({ kind, home }) }
    try {
      const id = await Effect.runPromise(withStore(h, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/p" })
          yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi")]))
          return id
        })))
      const holder = spawnChild(["hold", kind, home, id])
      try {
        await holder.waitFor((line) => line === "held")
        const locked = await Effect.runPromise(Effect.flip(withStore(h, (store) => store.open(id))))
        expect(locked).toMatchObject({ _tag: "SessionLocked", sessionId: id, pid: holder.pid })
        expect(locked.message).toBe(`session ${id} is open for writing by process ${holder.pid}`)
        const stillLocked = await Effect.runPromise(Effect.flip(withStore(h, (store) => store.append(id, stamped(3, [{ type: "turn/end", data: { reason: "completed" } }])))))
        expect(stillLocked).toMatchObject({ _tag: "SessionLocked", pid: holder.pid })
      } finally {
        await holder.kill()
      }
      // The holder closed the open turn when it opened the session; its lease died with it.
      const opened = await Effect.runPromise(withStore(h, (store) => store.open(id)))
      expect(opened.events.map((e) => e.type)).toStrictEqual(["turn/start", "user/message", "turn/end"])
      expect(opened.recovery).toStrictEqual({})
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })
})
