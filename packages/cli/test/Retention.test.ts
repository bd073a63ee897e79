// `turnlog delete` and `turnlog prune` through the command line (in-process),
// on the JSONL and SQLite stores: old sessions (imported with their own times)
// pruned by the time of their last event, a recent one kept, a dry run
// deleting nothing, a deleted session gone from `sessions` and `show`, an age
// that is not one refused in one sentence. (The PostgreSQL store, and an old
// session an editor holds: Retention.e2e.test.ts.)
import { afterAll, describe, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { pruneAndDelete } from "./support/retention.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

const stores: ReadonlyArray<{ readonly kind: string; readonly skip: boolean }> = [
  { kind: "jsonl", skip: false },
  { kind: "sqlite", skip: false },
]

for (const { kind, skip } of stores) {
  describe.skipIf(skip)(`retention on the ${kind} store`, () => {
    it("prune --dry-run names the old sessions and deletes nothing; prune deletes them; delete removes one; a bad age is one sentence", async () => {
      const home = tempDir(`retention-${kind}`)
      const cwd = tempDir(`retention-${kind}-cwd`)
      const env = { TURNLOG_HOME: home }
      await pruneAndDelete(turnlog, kind, home, cwd, env)
    })
  })
}
