// One writer per session across processes: a second process is refused with
// the holder's pid, and a holder that was killed leaves a lease that is taken over.
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { StoreLayer } from "../src/index.js"
import { isLive, newToken, startTimeIn, startTimeOf, thisHost } from "../src/internal/Liveness.js"
import { type Harness, withStore } from "./support/conformance.js"
import { stamped, userMessage } from "./support/fixtures.js"
import { spawnChild } from "./support/spawn.js"

/** A stored session whose turn is left open (a holder that opens it closes the turn). */
const sessionWithOpenTurn = (h: Harness) =>
  Effect.runPromise(withStore(h, (store) =>
    Effect.gen(function*() {
      const id = yield* store.create({ cwd: "/p" })
      yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi")]))
      return id
    })))

describe.each(["jsonl", "sqlite"] as const)("%s: one writer across processes", (kind) => {
  it("refuses a second writer with SessionLocked naming the holder, and takes over once the holder is killed", async () => {
    const home = mkdtempSync(join(tmpdir(), `turnlog-lease-${kind}-`))
    const h: Harness = { store: StoreLayer.layer({ kind, home }) }
    try {
      const id = await sessionWithOpenTurn(h)
      const holder = spawnChild(["hold", kind, home, id])
      try {
        await holder.waitFor((line) => line === "held")
        const locked = await Effect.runPromise(Effect.flip(withStore(h, (store) => store.open(id))))
        expect(locked).toMatchObject({ _tag: "SessionLocked", sessionId: id, holder: { host: hostname(), pid: holder.pid } })
        expect(locked.message).toBe(`session ${id} is open for writing on host ${hostname()} by process ${holder.pid}`)
        const stillLocked = await Effect.runPromise(
          Effect.flip(withStore(h, (store) => store.append(id, stamped(3, [{ type: "turn/end", data: { reason: "completed" } }])))),
        )
        expect(stillLocked).toMatchObject({ _tag: "SessionLocked", holder: { host: hostname(), pid: holder.pid } })
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

/** A process that is not a store: it holds nothing, it only has a pid and a start time. */
const bystander = async () => {
  const child = spawn("sleep", ["60"], { stdio: "ignore" })
  await new Promise<void>((resolve, reject) => child.once("spawn", resolve).once("error", reject))
  return { pid: child.pid!, stop: () => void child.kill("SIGKILL") }
}

describe("lease holders and pid reuse", () => {
  it("a token names its process's start time, the 22nd field of /proc/<pid>/stat", () => {
    const stat = readFileSync("/proc/self/stat", "utf8")
    const started = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!
    expect(startTimeOf(process.pid)).toBe(started)
    expect(startTimeIn(newToken())).toBe(started)
    expect(newToken()).toMatch(new RegExp(`^[0-9a-f-]{36}@${started}$`))
    expect(startTimeOf(2 ** 22 + 12345)).toBe("")
  })

  it("judges another process's lease by its pid and, when the token names one, its start time", async () => {
    const other = await bystander()
    try {
      const started = startTimeOf(other.pid)
      expect(started).toMatch(/^\d+$/)
      expect(isLive({ host: thisHost, pid: other.pid, token: `t@${started}` })).toBe(true)
      // The holder died and its pid now belongs to a process that started later.
      expect(isLive({ host: thisHost, pid: other.pid, token: `t@${Number(started) - 1}` })).toBe(false)
      // A token without a start time is judged by its pid alone.
      expect(isLive({ host: thisHost, pid: other.pid, token: "0f2c9a6e-3c41-4e0f-9d27-5b1e8d3f7a10" })).toBe(true)
    } finally {
      other.stop()
    }
  })

  describe.each(["jsonl", "sqlite"] as const)("%s", (kind) => {
    /** Leaves a lease on `id` as a holder with this pid and token would have. */
    const plant = (home: string, id: SessionId, pid: number, token: string) =>
      kind === "jsonl"
        ? Effect.sync(() => writeFileSync(join(home, "sessions", `${id}.lock`), JSON.stringify({ pid, token })))
        : Effect.scoped(Effect.flatMap(
          SqliteClient.make({ filename: join(home, "sessions.db") }).pipe(Effect.provide(Reactivity.layer)),
          (sql) => Effect.asVoid(sql.unsafe("INSERT OR REPLACE INTO leases (session_id, pid, token) VALUES (?, ?, ?)", [id, pid, token])),
        ))

    it("takes over a lease whose pid now belongs to a process that started after the holder, and keeps a live holder's", async () => {
      const home = mkdtempSync(join(tmpdir(), `turnlog-reuse-${kind}-`))
      const h: Harness = { store: StoreLayer.layer({ kind, home }) }
      const other = await bystander()
      try {
        const id = await sessionWithOpenTurn(h)
        const started = startTimeOf(other.pid)
        await Effect.runPromise(plant(home, id, other.pid, `holder@${started}`))
        const locked = await Effect.runPromise(Effect.flip(withStore(h, (store) => store.open(id))))
        expect(locked).toMatchObject({ _tag: "SessionLocked", sessionId: id, holder: { host: hostname(), pid: other.pid } })

        await Effect.runPromise(plant(home, id, other.pid, `holder@${Number(started) - 1}`))
        const opened = await Effect.runPromise(withStore(h, (store) => store.open(id)))
        expect(opened.events.map((e) => e.type)).toStrictEqual(["turn/start", "user/message", "turn/end"])
      } finally {
        other.stop()
        rmSync(home, { recursive: true, force: true })
      }
    })
  })
})

describe.each(["jsonl", "sqlite"] as const)("%s: a holder that is a zombie", (kind) => {
  it("is dead: killed while its parent does not reap it, its lease is taken over", async () => {
    const home = mkdtempSync(join(tmpdir(), `turnlog-zombie-${kind}-`))
    const h: Harness = { store: StoreLayer.layer({ kind, home }) }
    // The holder runs in the background of a shell that then becomes `sleep`,
    // which never waits for it: once killed, it stays a zombie.
    const child = [process.execPath, "--import", "tsx", fileURLToPath(new URL("./support/child.ts", import.meta.url))]
    let parent: ReturnType<typeof spawn> | undefined
    try {
      const id = await sessionWithOpenTurn(h)
      parent = spawn("sh", ["-c", `"$@" & exec sleep 600`, "sh", ...child, "hold", kind, home, id], {
        stdio: ["ignore", "pipe", "inherit"],
      })
      await new Promise<void>((resolve, reject) => {
        parent!.stdout!.setEncoding("utf8").on("data", (text: string) => text.includes("held") && resolve())
        parent!.once("exit", () => reject(new Error("the holder's parent ended first")))
      })
      const locked = await Effect.runPromise(Effect.flip(withStore(h, (store) => store.open(id))))
      if (locked._tag !== "SessionLocked") throw new Error(`expected SessionLocked, got ${locked.message}`)
      const pid = locked.holder.pid
      process.kill(pid, "SIGKILL")
      const state = () => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[0]
      while (state() !== "Z") await new Promise((resolve) => setTimeout(resolve, 10))
      const opened = await Effect.runPromise(withStore(h, (store) => store.open(id)))
      expect(opened.events.map((e) => e.type)).toStrictEqual(["turn/start", "user/message", "turn/end"])
      expect(state()).toBe("Z")
    } finally {
      parent?.kill("SIGKILL")
      rmSync(home, { recursive: true, force: true })
    }
  })
})
