// The lease names the program holding it, when that program said: a second
// writer is told a session is open in an editor (`turnlog acp`, pid N) rather
// than just "a process". A lease without the name — a lock file or lease row
// written by an older build — still reads, and gives the older wording.
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { SessionStore, StoreError, StoreLayer } from "../src/index.js"
import * as Postgres from "../src/Postgres.js"
import { applicationName, holderIn } from "../src/internal/PgConnection.js"
import { describePostgres, dropSchema, freshSchema, TEST_DATABASE_URL } from "./support/postgres.js"

const EDITOR = StoreError.EDITOR_PROGRAM

/** Runs `f` with two stores over one storage, as two processes would hold it: the first named `program`. */
const twoStores = <A, E>(
  first: Layer.Layer<SessionStore.SessionStore, StoreError.StoreError>,
  second: Layer.Layer<SessionStore.SessionStore, StoreError.StoreError>,
  f: (a: SessionStore.Service, b: SessionStore.Service) => Effect.Effect<A, E>,
) =>
  Effect.scoped(Effect.gen(function*() {
    const a = yield* Effect.provide(SessionStore.SessionStore, yield* Layer.build(first))
    const b = yield* Effect.provide(SessionStore.SessionStore, yield* Layer.build(second))
    return yield* f(a, b)
  }))

const locked = (a: SessionStore.Service, b: SessionStore.Service) =>
  Effect.gen(function*() {
    const id = yield* a.create({ cwd: "/p" })
    const refused = yield* Effect.flip(b.open(id))
    return { id, refused }
  })

describe.each(["jsonl", "sqlite"] as const)("%s: the holder's program", (kind) => {
  it.effect("a session held by `turnlog acp` is refused as open in an editor, naming its pid and host", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), `turnlog-program-${kind}-`))
      try {
        const { id, refused } = yield* twoStores(
          StoreLayer.layer({ kind, home, program: EDITOR }),
          StoreLayer.layer({ kind, home }),
          locked,
        )
        expect(refused).toMatchObject({
          _tag: "SessionLocked",
          holder: { host: hostname(), pid: process.pid, program: "turnlog acp" },
        })
        expect(refused.message).toBe(`session ${id} is open in an editor (turnlog acp, pid ${process.pid}) on host ${hostname()}`)
      } finally {
        rmSync(home, { recursive: true, force: true })
      }
    }))

  it.effect("a holder that named no program is refused in the older words, and another program is named as such", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), `turnlog-program-${kind}-`))
      try {
        const plain = yield* twoStores(StoreLayer.layer({ kind, home }), StoreLayer.layer({ kind, home }), locked)
        expect(plain.refused.message).toBe(`session ${plain.id} is open for writing on host ${hostname()} by process ${process.pid}`)
        expect("program" in (plain.refused as StoreError.SessionLocked).holder).toBe(false)
        const other = yield* twoStores(
          StoreLayer.layer({ kind, home, program: "turnlog run" }),
          StoreLayer.layer({ kind, home }),
          locked,
        )
        expect(other.refused.message).toBe(
          `session ${other.id} is open for writing by turnlog run (pid ${process.pid}) on host ${hostname()}`,
        )
      } finally {
        rmSync(home, { recursive: true, force: true })
      }
    }))
})

/** A process that is not a store: it only has a pid, alive while the test needs it. */
const bystander = async () => {
  const child = spawn("sleep", ["60"], { stdio: "ignore" })
  await new Promise<void>((resolve, reject) => child.once("spawn", resolve).once("error", reject))
  return { pid: child.pid!, stop: () => void child.kill("SIGKILL") }
}

describe("jsonl: the lock file", () => {
  it.effect("records the program beside host, pid and token; one without it (an older build's) still reads", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), "turnlog-program-lock-"))
      const other = yield* Effect.promise(bystander)
      try {
        const id = yield* twoStores(
          StoreLayer.layer({ kind: "jsonl", home, program: EDITOR }),
          StoreLayer.layer({ kind: "jsonl", home }),
          (a) =>
            Effect.gen(function*() {
              const id = yield* a.create({ cwd: "/p" })
              const lock = JSON.parse(readFileSync(join(home, "sessions", `${id}.lock`), "utf8"))
              expect(Object.keys(lock).sort()).toStrictEqual(["host", "pid", "program", "token"])
              expect(lock).toMatchObject({ host: hostname(), pid: process.pid, program: "turnlog acp" })
              return id
            }),
        )
        // As an older build wrote it, held by a live process.
        writeFileSync(join(home, "sessions", `${id}.lock`), JSON.stringify({ host: hostname(), pid: other.pid, token: "t" }))
        const refused = yield* Effect.flip(
          Effect.scoped(Effect.flatMap(Layer.build(StoreLayer.layer({ kind: "jsonl", home })), (ctx) =>
            Effect.provide(
              Effect.flatMap(SessionStore.SessionStore, (s) => s.open(id as SessionId)),
              ctx,
            ))),
        )
        expect(refused).toMatchObject({ _tag: "SessionLocked", holder: { host: hostname(), pid: other.pid } })
        expect(refused.message).toBe(`session ${id} is open for writing on host ${hostname()} by process ${other.pid}`)
      } finally {
        other.stop()
        rmSync(home, { recursive: true, force: true })
      }
    }))
})

describe("postgres: the connection's name", () => {
  it("is `turnlog <pid> <host> <program>`, read back whole; a name without a program reads as before", () => {
    const name = applicationName(EDITOR)
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(63)
    expect(holderIn(name)).toStrictEqual({ pid: process.pid, host: hostname(), program: "turnlog acp" })
    expect(holderIn(applicationName())).toStrictEqual({ pid: process.pid, host: hostname() })
    expect(holderIn("turnlog 42 build-host turnlog acp")).toStrictEqual({ pid: 42, host: "build-host", program: "turnlog acp" })
    expect(holderIn("turnlog 42 build-host")).toStrictEqual({ pid: 42, host: "build-host" })
  })
})

describePostgres("postgres: the holder's program", () => {
  it("a session held by `turnlog acp` is refused as open in an editor", async () => {
    const schema = freshSchema()
    try {
      const { id, refused } = await Effect.runPromise(twoStores(
        Postgres.layerPostgres({ url: TEST_DATABASE_URL, schema, program: EDITOR }),
        Postgres.layerPostgres({ url: TEST_DATABASE_URL, schema }),
        locked,
      ))
      expect(refused).toMatchObject({ _tag: "SessionLocked", holder: { host: hostname(), pid: process.pid, program: "turnlog acp" } })
      expect(refused.message).toBe(`session ${id} is open in an editor (turnlog acp, pid ${process.pid}) on host ${hostname()}`)
    } finally {
      await dropSchema(schema)
    }
  })
})
