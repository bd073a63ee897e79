// An editor holding 200 sessions in one `turnlog acp` process on PostgreSQL:
// each session is made, prompted at once with all the others, and answered;
// the process keeps its pool and one lease connection, not one per session.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { agent } from "./support/acpAgent.js"
import { admin, schemaUrl, skipPostgres } from "./support/postgres.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 300_000 })
afterAll(removeTempDirs)

const SESSIONS = 200

const answer = (text: string) =>
  JSON.stringify([
    { type: "block-start", index: 0, blockType: "text" },
    { type: "text-delta", index: 0, text },
    { type: "block-end", index: 0, block: { type: "text", text } },
    { type: "finish", reason: { kind: "stop" } },
  ])

describe.skipIf(skipPostgres)("turnlog acp on PostgreSQL", () => {
  const schema = `turnlog_acp_test_${process.pid}`
  beforeAll(() => admin(`CREATE SCHEMA ${schema}`))
  afterAll(() => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))

  it(`holds ${SESSIONS} sessions in one process and answers a prompt on each, all at once`, async () => {
    const home = tempDir("acp-pg-home")
    const workspace = tempDir("acp-pg-ws")
    const modelFile = join(home, "model.jsonl")
    writeFileSync(modelFile, Array.from({ length: SESSIONS }, () => answer("Answered.") + "\n").join(""))
    const ids: Array<string> = []
    let stops: Array<unknown> = []
    let connections = 0
    const run = await agent(home, workspace, modelFile, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      for (let i = 0; i < SESSIONS; i++) ids.push((await ctx.request("session/new", { cwd: workspace, mcpServers: [] })).sessionId)
      stops = await Promise.all(
        ids.map((sessionId, i) => ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `question ${i}` }] }).then((r) => r.stopReason)),
      )
      // While it holds every session: its pool and its lease connection.
      const [row] = await admin<{ readonly count: number }>(
        `SELECT count(*)::int AS count FROM pg_stat_activity WHERE application_name = (SELECT a.application_name
           FROM ${schema}.leases le JOIN pg_stat_activity a ON a.pid = le.holder_pid WHERE le.holder_pid <> 0 LIMIT 1)`,
      )
      connections = row!.count
    }, { args: ["--store", "postgres"], env: { TURNLOG_DATABASE_URL: schemaUrl(schema) } })
    expect(run.code, run.stderr).toBe(0)
    expect(stops).toStrictEqual(ids.map(() => "end_turn"))
    expect(connections).toBeGreaterThan(0)
    expect(connections).toBeLessThanOrEqual(21)
    const answered = run.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").length
    expect(answered).toBe(SESSIONS)
    // Every session stored its turn, closed as completed.
    const ends = await admin<{ readonly sessions: number }>(
      `SELECT count(DISTINCT session_id)::int AS sessions FROM ${schema}.events WHERE type = 'turn/end' AND data->>'reason' = 'completed'`,
    )
    expect(ends).toStrictEqual([{ sessions: SESSIONS }])
  })
})
