/**
 * The retention scenario both tiers run on their stores (`Retention.test.ts`
 * in process on JSONL and SQLite, `Retention.e2e.test.ts` through the binary
 * on PostgreSQL): old sessions imported with their own times, a dry run, a
 * prune, a delete, and an age that is not one.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { expect } from "vitest"
import type { Outcome } from "./turnlog.js"

/** `turnlog <args>` run one way or the other: in process or as the binary. */
export type Run = (
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: Readonly<Record<string, string>> },
) => Promise<Outcome>

/** A one-turn session log last written at `time`. */
export const log = (id: string, time: string) =>
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

export const OLD = ["20200101T000000-00000001", "20200102T000000-00000002"]
export const RECENT = "20990101T000000-00000003"

/**
 * prune --dry-run names the old sessions and deletes nothing; prune deletes
 * them; delete removes one; a bad age is one sentence.
 */
export const pruneAndDelete = async (
  turnlog: Run,
  kind: string,
  home: string,
  cwd: string,
  env: Readonly<Record<string, string>>,
): Promise<void> => {
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
}
