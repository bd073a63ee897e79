// `turnlog --store sqlite run` on a disk that fills up mid-session: the turn's
// first flush fails at COMMIT (SQLite writes a transaction's pages then). The
// command ends with one sentence naming the database and a failure exit — it
// used to hang forever — and once there is room the session continues.
// The disk is a real 1 MiB tmpfs mounted for the test (this needs root).
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { hasStackTrace, removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

afterAll(removeTempDirs)

const reply = (text: string) => [
  { type: "block-start", index: 0, blockType: "text" },
  { type: "text-delta", index: 0, text },
  { type: "block-end", index: 0, block: { type: "text", text } },
  { type: "finish", reason: { kind: "stop" } },
]

describe.skipIf(process.getuid?.() !== 0)("turnlog --store sqlite on a full disk", () => {
  it("ends the run with one sentence instead of hanging, and the session continues once there is room", async () => {
    const disk = mkdtempSync(join(tmpdir(), "turnlog-full-disk-"))
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk])
    try {
      const home = join(disk, "home")
      mkdirSync(home)
      const cwd = tempDir("full-disk-cwd")
      const script = join(cwd, "model.jsonl")
      writeFileSync(script, [reply("ok")].map((c) => JSON.stringify(c)).join("\n") + "\n")
      const run = (...args: Array<string>) => turnlog(["--home", home, "--store", "sqlite", "run", ...args], { cwd, env: { TURNLOG_SCRIPTED_MODEL: script } })

      const first = await run("hello")
      expect(first.code, first.stderr).toBe(0)
      expect(first.stdout).toBe("ok\n")

      // Leave a little room: the database opens, the prompt's commit does not fit.
      writeFileSync(join(disk, "filler"), Buffer.alloc(900 * 1024))
      const full = await run("--continue", "x".repeat(100_000))
      expect(full.code).toBe(1)
      expect(full.stdout).toBe("")
      const said = full.stderr.split("\n").filter((line) => line !== "" && !/scripted model|^turnlog: session /.test(line))
      expect(said).toStrictEqual([`turnlog: append to ${home}/sessions.db: database or disk is full`])
      expect(hasStackTrace(full.stderr)).toBe(false)

      rmSync(join(disk, "filler"))
      const again = await run("--continue", "again")
      expect(again.code, again.stderr).toBe(0)
      expect(again.stdout).toBe("ok\n")
      // The turn the full disk refused left nothing: the session has its two answered turns.
      const listed = await turnlog(["--home", home, "--store", "sqlite", "sessions"], { cwd })
      expect(listed.stdout.split("\n")[1]).toMatch(/^\S+ +\S+ +2 +/)
    } finally {
      execFileSync("umount", ["-l", disk])
      rmSync(disk, { recursive: true, force: true })
    }
  })
})
