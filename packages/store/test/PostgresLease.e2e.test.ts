// One writer per session across processes on PostgreSQL: a second process is
// refused naming the holder, a SIGKILLed holder's lease is free at once, and a
// holder whose connection is ended mid-turn stops with LeaseLost, having
// stored nothing it did not acknowledge, while another process continues.
import { expect, it } from "@effect/vitest"
import { hostname } from "node:os"
import { Effect } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { type Harness, withStore } from "./support/conformance.js"
import { crashEvent } from "./support/crashLog.js"
import { stamped, userMessage } from "./support/fixtures.js"
import { describePostgres, freshSchema, pgHarness, terminateLease } from "./support/postgres.js"
import { spawnChild } from "./support/spawn.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

const withSchema = async (f: (h: Harness, schema: string) => Promise<void>) => {
  const schema = freshSchema()
  const h = pgHarness(schema)
  try {
    await f(h, schema)
  } finally {
    await h.cleanup?.()
  }
}

/** A stored session whose turn is left open. */
const sessionWithOpenTurn = (h: Harness) =>
  run(withStore(h, (store) =>
    Effect.gen(function*() {
      const id = yield* store.create({ cwd: "/p" })
      yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi")]))
      return id
    })))

const read = (h: Harness, id: SessionId) => run(withStore(h, (store) => store.read(id)))

describePostgres("postgres: one writer across processes", () => {
  it("refuses a second process naming the holder's host and pid; a SIGKILLed holder's lease is taken within a second", async () => {
    await withSchema(async (h, schema) => {
      const id = await sessionWithOpenTurn(h)
      const holder = spawnChild(["hold", "postgres", schema, id])
      try {
        await holder.waitFor((line) => line === "held")
        const locked = await run(Effect.flip(withStore(h, (store) => store.open(id))))
        expect(locked).toMatchObject({ _tag: "SessionLocked", sessionId: id, holder: { pid: holder.pid, host: hostname() } })
        expect(locked.message).toBe(`session ${id} is open for writing on host ${hostname()} by process ${holder.pid}`)
        // A stopped holder keeps its connection, and with it the lease (documented in the README).
        holder.process.kill("SIGSTOP")
        try {
          await sleep(500)
          expect(await run(Effect.flip(withStore(h, (store) => store.open(id))))).toMatchObject({ _tag: "SessionLocked", holder: { pid: holder.pid } })
        } finally {
          holder.process.kill("SIGCONT")
        }
      } finally {
        await holder.kill()
      }
      // One store, trying every 50 ms: the lease is free within a second of the kill.
      const opened = await run(withStore(h, (store) =>
        Effect.gen(function*() {
          const deadline = Date.now() + 1000
          for (;;) {
            const attempt = yield* Effect.either(store.open(id))
            if (attempt._tag === "Right") return attempt.right
            if (attempt.left._tag !== "SessionLocked" || Date.now() > deadline) return yield* attempt.left
            yield* Effect.sleep(50)
          }
        })))
      // The holder closed the open turn when it opened the session.
      expect(opened.events.map((e) => e.type)).toStrictEqual(["turn/start", "user/message", "turn/end"])
      expect(opened.recovery).toStrictEqual({})
    })
  })

  it("pg_terminate_backend on the holder's connection mid-turn: LeaseLost, nothing unacknowledged stored, another process continues", async () => {
    await withSchema(async (h, schema) => {
      const id = await sessionWithOpenTurn(h)
      const holder = spawnChild(["step", "postgres", schema, id, "1"])
      try {
        // Its open closed the turn left open: seq 1-3 stored, its own events from seq 4.
        const start = Number((await holder.waitFor((line) => line.startsWith("start "))).slice(6))
        expect(start).toBe(4)
        holder.send("append")
        await holder.waitFor((line) => line === "appended 6")
        holder.send("flush")
        await holder.waitFor((line) => line === "flushed 6")
        holder.send("append")
        await holder.waitFor((line) => line === "appended 9")
        await run(terminateLease(id, schema))
        holder.send("flush")
        const lost = await holder.waitFor((line) => line.startsWith("failed "))
        expect(lost).toMatch(new RegExp(`^failed LeaseLost session ${id}: this process lost its lease \\(its database connection ended: `))
        // It never writes again under that lease, even once the session moved on.
        const other = await run(withStore(h, (store) =>
          Effect.gen(function*() {
            const opened = yield* store.open(id)
            yield* store.append(id, stamped(opened.events.length + 1, [{ type: "turn/start", data: {} }, userMessage("next")]))
            return opened
          })))
        holder.send("flush")
        const failures = () => holder.lines.filter((line) => line.startsWith("failed "))
        await holder.waitFor(() => failures().length === 2)
        expect(failures()).toStrictEqual([lost, lost])

        // Stored: the first holder's acknowledged events (4-6), then the other process's closing of its open turn.
        expect(other.events.slice(3).map((e) => e.seq)).toStrictEqual([4, 5, 6, 7])
        expect(other.events.slice(3, 6)).toStrictEqual([4, 5, 6].map((seq) => crashEvent(1, 4, seq)))
        expect(other.recovery.closedTurn?.map((e) => [e.seq, e.type])).toStrictEqual([[7, "turn/end"]])
        const final = await read(h, id)
        expect(final.events.map((e) => e.seq)).toStrictEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
        expect(final.events.slice(7).map((e) => e.type)).toStrictEqual(["turn/start", "user/message"])
      } finally {
        await holder.kill()
      }
    })
  })

  it("a connection ended at a random moment of a writing loop: every acknowledged event stored as written, the turn closed after", async () => {
    await withSchema(async (h, schema) => {
      const id = await sessionWithOpenTurn(h)
      for (let round = 1; round <= 3; round++) {
        const before = (await read(h, id)).events.length
        const writer = spawnChild(["crash", "postgres", schema, id, String(round)])
        try {
          await writer.waitFor((line) => line === "ready")
          writer.send("go")
          const start = Number((await writer.waitFor((line) => line.startsWith("start "))).slice(6))
          await writer.waitFor((line) => line.startsWith("flushed "))
          await sleep(Math.random() * 30)
          await run(terminateLease(id, schema))
          await writer.closed
          expect(writer.stderr()).toMatch(/^child failed: session \S+: this process lost its lease/m)
          const flushed = Number(writer.lines.filter((line) => line.startsWith("flushed ")).at(-1)!.slice(8))
          const events = (await read(h, id)).events
          // What was there is untouched; what the writer acknowledged is there; what is there is as written.
          expect(events.length).toBeGreaterThanOrEqual(flushed)
          expect(events.length).toBeGreaterThanOrEqual(before)
          for (let seq = start; seq <= events.length; seq++) expect(events[seq - 1]).toStrictEqual(crashEvent(round, start, seq))
          expect(events.every((e, i) => e.seq === i + 1)).toBe(true)
        } finally {
          await writer.kill()
        }
      }
      const opened = await run(withStore(h, (store) => store.open(id)))
      expect(opened.events.at(-1)!.type).toBe("turn/end")
      expect((await read(h, id)).recovery).toStrictEqual({})
    })
  }, 120_000)
})
