// `turnlog export` / `turnlog import` through the real binary: a session made on
// PostgreSQL with native replay metadata (Anthropic thinking signatures) is
// exported, imported into JSONL, continued there — the next request the
// loopback provider receives carries the signatures — and moved back into
// PostgreSQL and continued again; an existing id is refused. (What import
// refuses of a log, in-process: ExportImport.test.ts.)
// The tests are skipped with one line when no server answers, unless
// TURNLOG_REQUIRE_POSTGRES is set.
import { spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { admin, schemaUrl, skipPostgres } from "./support/postgres.js"
import { BIN, cleanEnv, type Outcome, removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

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
