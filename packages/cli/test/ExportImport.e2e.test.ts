// `turnlog export` / `turnlog import` through the real binary: a session made on
// PostgreSQL with native replay metadata (Anthropic thinking signatures) is
// exported, imported into JSONL, continued there — the next request the
// loopback provider receives carries the signatures — and moved back into
// PostgreSQL and continued again. Import refuses an existing id, a seq gap, a
// damaged line and a newer version, in the JSONL reader's own words, touching
// nothing; export of an unknown id fails with nothing on stdout.
// The PostgreSQL part is skipped with one line when no server answers, unless
// TURNLOG_REQUIRE_POSTGRES is set.
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { SessionLog } from "@turnlog/protocol"
import { Loopback } from "@turnlog/testkit"
import { admin, schemaUrl, skipPostgres } from "./support/postgres.js"
import { BIN, cleanEnv, hasStackTrace, type Outcome, removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 })
afterAll(removeTempDirs)

/** The binary with `input` on its stdin. */
const withStdin = (args: ReadonlyArray<string>, input: string, options: { cwd: string; env: Record<string, string> }) =>
  new Promise<Outcome>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: { ...cleanEnv(), ...options.env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }))
    child.stdin.end(input)
  })

const sessionIdFrom = (stderr: string): string => {
  const match = /^turnlog: session (\S+)$/m.exec(stderr)
  if (match === null) throw new Error(`no session id in: ${stderr}`)
  return match[1]!
}

const thinkingOf = (body: unknown) =>
  (body as { messages: Array<{ role: string; content: unknown }> }).messages
    .filter((m) => m.role === "assistant")
    .map((m) => m.content)

describe.skipIf(skipPostgres)("a session moved between PostgreSQL and JSONL", () => {
  const first = `turnlog_cli_port_a_${process.pid}`
  const second = `turnlog_cli_port_b_${process.pid}`
  let server: Loopback.Server
  const home = tempDir("port-home")
  const cwd = tempDir("port-cwd")
  let env: Record<string, string>

  beforeAll(async () => {
    await admin(`CREATE SCHEMA ${first}`)
    await admin(`CREATE SCHEMA ${second}`)
    server = await Loopback.start()
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        model: "local/thinker",
        providers: {
          local: {
            api: "anthropic-messages",
            baseUrl: server.baseUrl("anthropic-messages"),
            apiKeyEnv: "LOCAL_TEST_KEY",
            models: [{ id: "thinker", reasoning: true }],
          },
        },
      }),
    )
    env = { TURNLOG_HOME: home, LOCAL_TEST_KEY: "sk-local-123456" }
  })
  afterAll(async () => {
    await server?.close()
    await admin(`DROP SCHEMA IF EXISTS ${first} CASCADE`)
    await admin(`DROP SCHEMA IF EXISTS ${second} CASCADE`)
  })

  it("continues with its thinking signatures after PostgreSQL → JSONL and JSONL → PostgreSQL", async () => {
    const onFirst = { ...env, TURNLOG_DATABASE_URL: schemaUrl(first) }
    const onSecond = { ...env, TURNLOG_DATABASE_URL: schemaUrl(second) }

    server.enqueue({
      blocks: [{ type: "reasoning", text: "The user greets.", signature: "EqQBCkgIBRgCIkDpgSig" }, { type: "text", text: "Hello." }],
    })
    const made = await turnlog(["--store", "postgres", "run", "say hello"], { cwd, env: onFirst })
    expect(made.code, made.stderr).toBe(0)
    expect(made.stdout).toBe("Hello.\n")
    const id = sessionIdFrom(made.stderr)

    const exported = await turnlog(["--store", "postgres", "export", id], { cwd, env: onFirst })
    expect(exported.code, exported.stderr).toBe(0)
    expect(exported.stderr).toBe("")
    const fromPg = join(home, "from-pg.jsonl")
    writeFileSync(fromPg, exported.stdout)
    const header = JSON.parse(exported.stdout.split("\n")[0]!) as Record<string, unknown>
    expect(header).toMatchObject({ type: "session", id, cwd })
    expect(exported.stdout).toContain("EqQBCkgIBRgCIkDpgSig")

    const imported = await turnlog(["import", fromPg], { cwd, env })
    expect(imported.code, imported.stderr).toBe(0)
    const events = exported.stdout.trim().split("\n").length - 1
    expect(imported.stdout).toBe(`imported session ${id}: ${events} events\n`)
    // The JSONL log is the session exactly as PostgreSQL gave it, its header (creation time, version) included.
    const file = join(home, "sessions", `${id}.jsonl`)
    expect(readFileSync(file, "utf8")).toBe(exported.stdout)

    server.enqueue({
      blocks: [{ type: "reasoning", text: "Again.", signature: "EqQBCkgIBRgCIkDjsonlSig" }, { type: "text", text: "Still here." }],
    })
    const onJsonl = await turnlog(["run", "--continue", "are you there"], { cwd, env })
    expect(onJsonl.code, onJsonl.stderr).toBe(0)
    expect(onJsonl.stdout).toBe("Still here.\n")
    expect(sessionIdFrom(onJsonl.stderr)).toBe(id)
    expect(thinkingOf(server.requests().at(-1)!.body)).toEqual([[
      { type: "thinking", thinking: "The user greets.", signature: "EqQBCkgIBRgCIkDpgSig" },
      { type: "text", text: "Hello." },
    ]])

    // Back into PostgreSQL (another database schema: the first still holds the session).
    const fromJsonl = await turnlog(["export", id], { cwd, env })
    expect(fromJsonl.code, fromJsonl.stderr).toBe(0)
    expect(fromJsonl.stdout).toBe(readFileSync(file, "utf8"))
    const back = await withStdin(["--store", "postgres", "import", "-"], fromJsonl.stdout, { cwd, env: onSecond })
    expect(back.code, back.stderr).toBe(0)
    expect(back.stdout).toBe(`imported session ${id}: ${fromJsonl.stdout.trim().split("\n").length - 1} events\n`)
    const reexported = await turnlog(["--store", "postgres", "export", id], { cwd, env: onSecond })
    expect(reexported.stdout).toBe(fromJsonl.stdout)

    server.enqueue({ blocks: [{ type: "text", text: "Back on the database." }] })
    const onPg = await turnlog(["--store", "postgres", "run", "--session", id, "and now"], { cwd, env: onSecond })
    expect(onPg.code, onPg.stderr).toBe(0)
    expect(onPg.stdout).toBe("Back on the database.\n")
    expect(thinkingOf(server.requests().at(-1)!.body)).toEqual([
      [
        { type: "thinking", thinking: "The user greets.", signature: "EqQBCkgIBRgCIkDpgSig" },
        { type: "text", text: "Hello." },
      ],
      [
        { type: "thinking", thinking: "Again.", signature: "EqQBCkgIBRgCIkDjsonlSig" },
        { type: "text", text: "Still here." },
      ],
    ])

    // The same id again into the first database: refused, the stored session untouched.
    const before = await turnlog(["--store", "postgres", "export", id], { cwd, env: onFirst })
    const again = await turnlog(["--store", "postgres", "import", fromPg], { cwd, env: onFirst })
    expect(again.code).toBe(1)
    expect(again.stdout).toBe("")
    expect(again.stderr).toBe(`turnlog: session ${id} already exists in the postgres store (${events} events): nothing imported\n`)
    expect((await turnlog(["--store", "postgres", "export", id], { cwd, env: onFirst })).stdout).toBe(before.stdout)
  })
})

describe("turnlog import refuses what is not a whole log of this version", () => {
  const home = tempDir("import-home")
  const cwd = tempDir("import-cwd")
  const env = { TURNLOG_HOME: home }
  const header = { type: "session", version: 1, id: "20260101T000000-0a0b0c0d", createdAt: "2026-01-01T00:00:00.000Z", cwd }
  const event = (seq: number, type: string, data: unknown) => JSON.stringify({ seq, time: `2026-01-01T00:00:0${seq}.000Z`, type, data })
  const user = (seq: number, text: string) =>
    event(seq, "user/message", {
      message: { id: `msg_u${seq}`, role: "user", content: [{ type: "text", text }], source: { kind: "user" } },
    })
  const log = (...lines: ReadonlyArray<string>) => lines.map((l) => `${l}\n`).join("")
  const good = log(JSON.stringify(header), event(1, "turn/start", {}), user(2, "hi"))

  const refused = async (name: string, text: string, message: string) => {
    const file = join(cwd, name)
    writeFileSync(file, text)
    const outcome = await turnlog(["import", file], { cwd, env })
    expect(outcome.code).toBe(1)
    expect(outcome.stdout).toBe("")
    expect(outcome.stderr).toBe(`turnlog: ${file}${message}: nothing imported\n`)
    expect(hasStackTrace(outcome.stderr)).toBe(false)
    expect(existsSync(join(home, "sessions", `${header.id}.jsonl`))).toBe(false)
    return file
  }

  it("a gap in seq, a damaged line, an unknown event type, a newer version, a torn tail: each named by file and line", async () => {
    await refused("gap.jsonl", log(JSON.stringify(header), event(1, "turn/start", {}), user(3, "hi")), ":3: expected event seq 2, found 3")
    await refused(
      "newer.jsonl",
      log(JSON.stringify({ ...header, version: 99 })),
      `: log version 99 was written by a newer turnlog (this build reads version ${SessionLog.LOG_VERSION})`,
    )
    await refused(
      "unknown.jsonl",
      log(JSON.stringify(header), event(1, "turn/start", {}), event(2, "turn/pause", {})),
      ':3: unknown event type "turn/pause" (written by a newer turnlog?)',
    )
    await refused(
      "torn.jsonl",
      log(JSON.stringify(header), event(1, "turn/start", {})) + user(2, "hi").slice(0, 30),
      ":3: the file ends in a torn tail (a write that never finished): it does not hold the whole session",
    )
    const damaged = await refused(
      "damaged.jsonl",
      log(JSON.stringify(header), event(1, "turn/start", {}), '{"seq":2,"ti', user(3, "hi")),
      ":3: unreadable line followed by a complete event (seq 3, line 4)",
    )
    // The JSONL reader says the same of the same log.
    const readerHome = tempDir("import-reader")
    mkdirSync(join(readerHome, "sessions"))
    writeFileSync(join(readerHome, "sessions", `${header.id}.jsonl`), readFileSync(damaged))
    const shown = await turnlog(["show", header.id], { cwd, env: { TURNLOG_HOME: readerHome } })
    expect(shown.code).toBe(1)
    expect(shown.stderr).toBe(
      `turnlog: ${join(readerHome, "sessions", `${header.id}.jsonl`)}:3: unreadable line followed by a complete event (seq 3, line 4)\n`,
    )
  })

  it("imports a session with an open turn as it is, exports it byte for byte, and refuses it a second time", async () => {
    const file = join(cwd, "good.jsonl")
    writeFileSync(file, good)
    const imported = await turnlog(["import", file], { cwd, env })
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stdout).toBe(`imported session ${header.id}: 2 events\n`)
    expect(imported.stderr).toBe(
      `turnlog: session ${header.id}: its last turn (from event 1) is open; it is closed as interrupted when the session is next opened\n`,
    )
    // Byte for byte, the header included: its creation time, and version 1 (the build that wrote it still reads it).
    const stored = readFileSync(join(home, "sessions", `${header.id}.jsonl`), "utf8")
    expect(stored).toBe(good)

    const exported = await turnlog(["export", header.id], { cwd, env })
    expect(exported.code).toBe(0)
    expect(exported.stdout).toBe(stored)
    expect(exported.stderr).toBe(
      `turnlog: session ${header.id}: its last turn (from event 1) was left open; exported as it is (the next open closes it as interrupted)\n`,
    )

    const again = await withStdin(["import", "-"], good, { cwd, env })
    expect(again.code).toBe(1)
    expect(again.stderr).toBe(`turnlog: session ${header.id} already exists in the jsonl store (2 events): nothing imported\n`)
    expect(readFileSync(join(home, "sessions", `${header.id}.jsonl`), "utf8")).toBe(stored)
  })

  it("export of an unknown id fails with exit 1 and nothing on stdout", async () => {
    const outcome = await turnlog(["export", "20260101T000000-ffffffff"], { cwd, env })
    expect(outcome).toEqual({
      code: 1,
      stdout: "",
      stderr: "turnlog: session 20260101T000000-ffffffff not found (list sessions with: turnlog sessions)\n",
    })
  })
})
