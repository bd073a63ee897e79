// `turnlog compact` through the real binary against the loopback provider: a
// process killed while its summary streams leaves the session as if the
// compaction had not started. (The compaction itself, in-process: Compact.test.ts.)
import { spawn } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { threeLongTurns } from "./support/compactSession.js"
import { BIN, cleanEnv, logLines, removeTempDirs, sessionIds, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 })
afterAll(removeTempDirs)

describe("turnlog compact", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  it("a process killed while its summary streams leaves the session as if the compaction had not started", async () => {
    const { home, cwd, env } = await threeLongTurns(server, turnlog, "compact-kill", "openai-responses")
    // The provider refuses the next request as too large; the summary then streams slowly.
    server.enqueue(
      { status: 400, kind: "context-overflow" },
      { blocks: [{ type: "text", text: "A summary that is never recorded." }], delayMs: 2000 },
    )
    const seen = server.requests().length
    const child = spawn(process.execPath, [BIN, "run", "--continue", "one more"], { cwd, env: { ...cleanEnv(), ...env } })
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
    await server.waitForRequests(seen + 2)
    child.kill("SIGKILL")
    await exited
    const [id] = sessionIds(home)
    const logged = logLines(home, id!)
    expect(logged.filter((l) => l.type === "context/compaction")).toEqual([])
    expect(logged.filter((l) => l.type === "request/start").at(-1).data.purpose).toBe("compaction")

    server.enqueue({ blocks: [{ type: "text", text: "Continued." }] })
    const continued = await turnlog(["run", "--continue", "go on"], { cwd, env })
    expect(continued.code, continued.stderr).toBe(0)
    expect(continued.stdout).toBe("Continued.\n")
    const sent = JSON.stringify(server.requests().at(-1)!.body)
    expect(sent).not.toContain("A summary that is never recorded.")
    expect(sent).not.toContain("was compacted")
    expect(sent).toContain("Question 1.")
    expect(sent).toContain("go on")
  })
})
