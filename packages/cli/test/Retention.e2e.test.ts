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
import { type Outcome, removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000 })
afterAll(removeTempDirs)

const schema = `turnlog_retention_test_${process.pid}`

/** A one-turn session log last written at `time`. */
const log = (id: string, time: string) =>
  [
    { type: "session", version: 2, id, createdAt: time, cwd: "/p" },
    { seq: 1, time, type: "turn/start", data: {} },
    {
      seq: 2,
      time,
      type: "user/message",
      data: { message: { id: "m1", role: "user", content: [{ type: "text", text: `hello from ${id}` }], source: { kind: "user" } } },
    },
    { seq: 3, time, type: "turn/end", data: { reason: "completed" } },
  ].map((line) => JSON.stringify(line)).join("\n") + "\n"

const OLD = ["20200101T000000-00000001", "20200102T000000-00000002"]
const RECENT = "20990101T000000-00000003"

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
      const args = (rest: ReadonlyArray<string>) => ["--store", kind, ...rest]
      for (const [id, time] of [[OLD[0]!, "2020-01-01T00:00:00.000Z"], [OLD[1]!, "2020-01-02T00:00:00.000Z"], [RECENT, new Date().toISOString()]] as const) {
        const file = join(home, `${id}.jsonl`)
        writeFileSync(file, log(id, time))
        const imported = await turnlog(args(["import", file]), { cwd, env })
        expect(imported.code, imported.stderr).toBe(0)
      }

      const dry = await turnlog(args(["prune", "--older-than", "30d", "--dry-run"]), { cwd, env })
      expect(dry.code, dry.stderr).toBe(0)
      expect(dry.stdout).toBe(
        `${OLD[1]}  2020-01-02T00:00:00.000Z  would be deleted\n${OLD[0]}  2020-01-01T00:00:00.000Z  would be deleted\n`,
      )
      expect(dry.stderr).toBe("turnlog: 2 of 3 session(s) last written more than 30d ago would be deleted (nothing was)\n")

      const pruned = await turnlog(args(["prune", "--older-than", "30d"]), { cwd, env })
      expect(pruned.code, pruned.stderr).toBe(0)
      expect(pruned.stdout).toBe(`${OLD[1]}  2020-01-02T00:00:00.000Z  deleted\n${OLD[0]}  2020-01-01T00:00:00.000Z  deleted\n`)
      expect(pruned.stderr).toBe("turnlog: deleted 2 of 3 session(s) last written more than 30d ago\n")
      const listed = await turnlog(args(["sessions", "--json"]), { cwd, env })
      expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((s) => s.id)).toStrictEqual([RECENT])

      const deleted = await turnlog(args(["delete", RECENT]), { cwd, env })
      expect(deleted.code, deleted.stderr).toBe(0)
      expect(deleted.stderr).toBe(`turnlog: deleted session ${RECENT}\n`)
      const shown = await turnlog(args(["show", RECENT]), { cwd, env })
      expect(shown.code).toBe(1)
      expect(shown.stderr).toBe(`turnlog: session ${RECENT} not found (list sessions with: turnlog sessions)\n`)
      const again = await turnlog(args(["delete", RECENT]), { cwd, env })
      expect(again.code).toBe(1)
      expect(again.stderr).toBe(`turnlog: session ${RECENT} not found (list sessions with: turnlog sessions)\n`)

      const bad = await turnlog(args(["prune", "--older-than", "a month"]), { cwd, env })
      expect(bad.code).toBe(2)
      expect(bad.stderr).toBe(
        `turnlog: --older-than "a month" is not an age: give a whole number and a unit, m, h, d or w (for example 30d)\n`,
      )
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
