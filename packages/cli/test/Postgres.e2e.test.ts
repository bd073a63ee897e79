// The command line on the PostgreSQL store: chosen with --store postgres or the
// config's store, the database from TURNLOG_DATABASE_URL or database.url; run,
// sessions, show and doctor on it, and the max-tokens regression end to end
// (cut off → persisted → reconstructed → continued over the loopback wire).
// Skipped with one line when no server answers, unless TURNLOG_REQUIRE_POSTGRES is set.
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { admin, schemaUrl, skipPostgres } from "./support/postgres.js"
import { removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 })
afterAll(removeTempDirs)

const sessionIdFrom = (stderr: string): string => {
  const match = /^turnlog: session (\S+)$/m.exec(stderr)
  if (match === null) throw new Error(`no session id in: ${stderr}`)
  return match[1]!
}

describe.skipIf(skipPostgres)("the postgres store", () => {
  // The store's tables in a schema of this test file's own, through the URL's search_path.
  const schema = `turnlog_cli_test_${process.pid}`
  const url = schemaUrl(schema)
  let server: Loopback.Server
  const home = tempDir("pg-home")
  const cwd = tempDir("pg-cwd")
  let env: Record<string, string>

  beforeAll(async () => {
    await admin(`CREATE SCHEMA ${schema}`)
    server = await Loopback.start()
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        model: "local/test-model",
        providers: {
          local: {
            api: "openai-completions",
            baseUrl: server.baseUrl("openai-completions"),
            apiKeyEnv: "LOCAL_TEST_KEY",
            models: [{ id: "test-model" }],
          },
        },
      }),
    )
    env = { TURNLOG_HOME: home, LOCAL_TEST_KEY: "sk-local-123456", TURNLOG_DATABASE_URL: url }
  })
  afterAll(async () => {
    await server?.close()
    await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  })

  it("the max-tokens regression: a cut-off tool call never runs nor reaches the next request; sessions, show and doctor read it", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "Hello from the loopback." }] })
    const first = await turnlog(["--store", "postgres", "run", "say hello"], { cwd, env })
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toBe("Hello from the loopback.\n")
    const id = sessionIdFrom(first.stderr)
    // Nothing of it went to the home directory.
    expect(existsSync(join(home, "sessions"))).toBe(false)

    server.enqueue({
      blocks: [
        { type: "text", text: "Writing it now." },
        { type: "tool-call", id: "call_1", name: "write_file", arguments: '{"path":"out.txt","con', complete: false },
      ],
      finish: "max-tokens",
    })
    const cut = await turnlog(["run", "--store", "postgres", "--continue", "--allow-tools", "write out.txt"], { cwd, env })
    expect(cut.code, cut.stderr).toBe(0)
    expect(cut.stdout).toBe("Writing it now.\n")
    expect(cut.stderr).toContain("turnlog: the answer stopped at the output limit; any unfinished tool call was dropped.")
    expect(existsSync(join(cwd, "out.txt"))).toBe(false)

    server.enqueue({ blocks: [{ type: "text", text: "Continuing." }] })
    const next = await turnlog(["run", "--store", "postgres", "--session", id, "go on"], { cwd, env })
    expect(next.code, next.stderr).toBe(0)
    expect(next.stdout).toBe("Continuing.\n")
    const body = server.requests()[2]!.body as { messages: Array<{ role: string; content: unknown; tool_calls?: unknown }> }
    expect(body.messages.filter((m) => m.role === "assistant").map((m) => [m.content, m.tool_calls])).toEqual([
      ["Hello from the loopback.", undefined],
      ["Writing it now.", undefined],
    ])
    expect(JSON.stringify(body)).not.toContain('write_file","arguments')

    const listed = await turnlog(["sessions", "--store", "postgres", "--json"], { cwd, env })
    expect(listed.code, listed.stderr).toBe(0)
    const sessions = JSON.parse(listed.stdout) as Array<Record<string, unknown>>
    expect(sessions.map(({ id, cwd, turns, title }) => ({ id, cwd, turns, title }))).toEqual([
      { id, cwd, turns: 3, title: "say hello" },
    ])

    const shown = JSON.parse((await turnlog(["show", "--store", "postgres", id, "--json"], { cwd, env })).stdout) as {
      turns: Array<{ end: { reason: string } }>
    }
    expect(shown.turns.map((t) => t.end.reason)).toEqual(["completed", "max-tokens", "completed"])

    const doctor = await turnlog(["doctor", "--store", "postgres", id, "--json"], { cwd, env })
    expect(doctor.code, doctor.stderr).toBe(0)
    expect(JSON.parse(doctor.stdout)).toEqual([{
      id,
      cwd,
      events: expect.any(Number),
      messages: [
        { messageId: expect.stringMatching(/^msg_/), route: "local/test-model", replay: "native", adapter: "pi-ai" },
        { messageId: expect.stringMatching(/^msg_/), route: "local/test-model", replay: "native", adapter: "pi-ai" },
        { messageId: expect.stringMatching(/^msg_/), route: "local/test-model", replay: "native", adapter: "pi-ai" },
      ],
      openTurn: false,
      compactions: 0,
      refused: [],
      systemPrompt: { hash: expect.stringMatching(/^[0-9a-f]{64}$/), sources: ["default"], changes: 0 },
    }])
  })

  it("the config's store and database.url choose the database; TURNLOG_DATABASE_URL wins over database.url", async () => {
    const file = join(home, "pg.json")
    writeFileSync(file, JSON.stringify({ store: "postgres", database: { url } }))
    const { TURNLOG_DATABASE_URL: _, ...withoutUrl } = env
    const listed = await turnlog(["--config", file, "sessions", "--json"], { cwd, env: withoutUrl })
    expect(listed.code, listed.stderr).toBe(0)
    expect((JSON.parse(listed.stdout) as Array<unknown>).length).toBe(1)

    const refused = await turnlog(["--config", file, "sessions"], {
      cwd,
      env: { ...withoutUrl, TURNLOG_DATABASE_URL: "postgres://postgres:hunter2@127.0.0.1:1/none" },
    })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      /^turnlog: the postgres session store cannot be opened: connect to postgres:\/\/postgres@127\.0\.0\.1:1\/none: .*ECONNREFUSED/,
    )
    // The password is never shown.
    expect(refused.stderr).not.toContain("hunter2")
  })
})
