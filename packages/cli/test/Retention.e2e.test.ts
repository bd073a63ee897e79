// `turnlog delete` and `turnlog prune` through the real binary, on the
// PostgreSQL store: old sessions (imported with their own times) pruned by the
// time of their last event, a recent one kept, a dry run deleting nothing, a
// deleted session gone from `sessions` and `show`, an age that is not one
// refused in one sentence; and an old session an editor holds kept, naming it.
// (The JSONL and SQLite stores, in-process: Retention.test.ts.)
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { admin, schemaUrl, skipPostgres } from "./support/postgres.js"
import { agent } from "./support/acpAgent.js"
import { log, OLD, pruneAndDelete } from "./support/retention.js"
import { type Outcome, removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000 })
afterAll(removeTempDirs)

const schema = `turnlog_retention_test_${process.pid}`

const stores: ReadonlyArray<{ readonly kind: string; readonly skip: boolean }> = [
  { kind: "postgres", skip: skipPostgres },
]

beforeAll(async () => {
  if (!skipPostgres) await admin(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
})
afterAll(async () => {
  if (!skipPostgres) await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
})

for (const { kind, skip } of stores) {
  describe.skipIf(skip)(`retention on the ${kind} store`, () => {
    it("prune --dry-run names the old sessions and deletes nothing; prune deletes them; delete removes one; a bad age is one sentence", async () => {
      const home = tempDir(`retention-${kind}`)
      const cwd = tempDir(`retention-${kind}-cwd`)
      const env = { TURNLOG_HOME: home, ...(kind === "postgres" ? { TURNLOG_DATABASE_URL: schemaUrl(schema) } : {}) }
      await pruneAndDelete(turnlog, kind, home, cwd, env)
    })
  })
}

describe("prune beside an editor", () => {
  it("keeps an old session a live turnlog acp holds, naming the holder, and fails after pruning the rest", async () => {
    const home = tempDir("retention-held")
    const cwd = tempDir("retention-held-cwd")
    const env = { TURNLOG_HOME: home }
    for (const [id, time] of [[OLD[0]!, "2020-01-01T00:00:00.000Z"], [OLD[1]!, "2020-01-02T00:00:00.000Z"]] as const) {
      const file = join(home, `${id}.jsonl`)
      writeFileSync(file, log(id, time))
      expect((await turnlog(["import", file], { cwd, env })).code).toBe(0)
    }
    const modelFile = join(home, "model.jsonl")
    writeFileSync(modelFile, "")
    let pruned: Outcome | undefined
    const editor = await agent(home, cwd, modelFile, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      await ctx.request("session/load", { sessionId: OLD[0]!, cwd, mcpServers: [] })
      pruned = await turnlog(["prune", "--older-than", "30d"], { cwd, env })
    })
    expect(editor.code, editor.stderr).toBe(0)
    expect(pruned!.code).toBe(1)
    expect(pruned!.stdout).toBe(`${OLD[1]}  2020-01-02T00:00:00.000Z  deleted\n`)
    expect(pruned!.stderr).toMatch(
      new RegExp(`^turnlog: session ${OLD[0]} kept: session ${OLD[0]} is open in an editor \\(turnlog acp, pid \\d+\\) on host \\S+\n`),
    )
    expect(pruned!.stderr).toContain("turnlog: deleted 1 of 2 session(s) last written more than 30d ago\n")
    expect(pruned!.stderr).toMatch(/turnlog: 1 session\(s\) older than 30d were kept \(see above\)\n$/)
    const listed = await turnlog(["sessions", "--json"], { cwd, env })
    expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((s) => s.id)).toStrictEqual([OLD[0]])
  })
})
