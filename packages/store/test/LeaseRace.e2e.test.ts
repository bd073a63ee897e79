// Several processes taking over a dead holder's lease at the same moment:
// exactly one of them holds it, every time. Each round plants a lease left by
// a dead process on a fresh session and lets the racers at it at once.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { StoreLayer } from "../src/index.js"
import { type Harness, withStore } from "./support/conformance.js"
import { stamped } from "./support/fixtures.js"
import { type StoreChild, spawnChild } from "./support/spawn.js"

const RACERS = 4
const ROUNDS = 40
const DEAD_PID = 2 ** 31 - 2

describe.each(["jsonl", "sqlite"] as const)("%s: racing takeovers of a dead holder's lease", (kind) => {
  it(`leave exactly one holder in each of ${ROUNDS} rounds of ${RACERS} processes`, async () => {
    const home = mkdtempSync(join(tmpdir(), `turnlog-race-${kind}-`))
    const h: Harness = { store: StoreLayer.layer({ kind, home }) }
    const racers: Array<StoreChild> = []
    try {
      const ids = await Effect.runPromise(withStore(h, (store) =>
        Effect.forEach(Array.from({ length: ROUNDS }), () =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/p" })
            yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, { type: "turn/end", data: { reason: "completed" } }]))
            return id
          }))))
      // A lease on each, left by a process that is gone.
      const plant = (id: SessionId, i: number) =>
        kind === "jsonl"
          ? Effect.sync(() => writeFileSync(join(home, "sessions", `${id}.lock`), JSON.stringify({ pid: DEAD_PID, token: `dead-${i}@1` })))
          : Effect.scoped(Effect.flatMap(
            SqliteClient.make({ filename: join(home, "sessions.db") }).pipe(Effect.provide(Reactivity.layer)),
            (sql) => Effect.asVoid(sql.unsafe("INSERT INTO leases (session_id, pid, token) VALUES (?, ?, ?)", [id, DEAD_PID, `dead-${i}@1`])),
          ))
      await Effect.runPromise(Effect.forEach(ids, plant, { discard: true }))
      for (let i = 0; i < RACERS; i++) racers.push(spawnChild(["race", kind, home, ids.join(",")]))
      await Promise.all(racers.map((r) => r.waitFor((line) => line === "ready")))
      const outcomes: Array<string> = []
      for (let round = 0; round < ROUNDS; round++) {
        for (const racer of racers) racer.send(`go ${round}`)
        const said = await Promise.all(racers.map((r) => r.waitFor((line) => line.endsWith(` ${round}`))))
        outcomes.push(said.map((line) => line.split(" ")[0]).sort().join(","))
      }
      const one = ["held", ...Array.from({ length: RACERS - 1 }, () => "locked")].join(",")
      expect(outcomes).toStrictEqual(Array.from({ length: ROUNDS }, () => one))
    } finally {
      await Promise.all(racers.map((r) => r.kill()))
      rmSync(home, { recursive: true, force: true })
    }
  })
})
