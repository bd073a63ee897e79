// `turnlog compact` through the command line (in-process) against the loopback provider:
// the session's model writes the summary, the log gets context/compaction, the
// estimates before and after are printed, `show` marks what was compacted,
// and the next `run --continue` sends the summary instead of the old turns.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { threeLongTurns } from "./support/compactSession.js"
import { turnlog } from "./support/inProcess.js"
import { logLines, removeTempDirs, sessionIds } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 })
afterAll(removeTempDirs)

describe("turnlog compact", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  it("summarises the older turns with the session's model and prints the estimates before and after", async () => {
    const { home, cwd, env } = await threeLongTurns(server, turnlog, "compact", "anthropic-messages")
    expect(await turnlog(["compact"], { cwd, env })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("compact needs one of --session <id> or --continue"),
    })

    server.enqueue({ blocks: [{ type: "text", text: "Summary: three long questions, each answered." }] })
    const compacted = await turnlog(["compact", "--continue"], { cwd, env })
    expect(compacted.code).toBe(0)
    const [id] = sessionIds(home)
    expect(compacted.stdout).toMatch(new RegExp(`^session ${id}: compacted; its next request is about \\d+ tokens before, about \\d+ tokens after\\n$`))
    const [, before, after] = /about (\d+) tokens before, about (\d+)/.exec(compacted.stdout)!.map(Number)
    expect(after).toBeLessThan(before! - 1000)
    const lines = logLines(home, id!)
    const event = lines.find((l) => l.type === "context/compaction")
    expect(event.data).toMatchObject({
      summary: "Summary: three long questions, each answered.",
      tokensBefore: before,
      tokensAfter: after,
      provider: "local",
      model: "small",
    })

    const shown = await turnlog(["show", id!], { cwd, env })
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain("── turn 1 (compacted: the model sees it only through a summary)")
    expect(shown.stdout).not.toContain("── turn 3 (compacted")
    expect(shown.stdout).toMatch(
      new RegExp(
        `compaction \\(between turns\\): the history before event ${event.data.firstKeptSeq} summarised by local/small, about ${before} → ${after} tokens:\n  Summary: three long questions, each answered.`,
      ),
    )
    // Still printed: nothing before the compaction is gone.
    expect(shown.stdout).toContain("Question 1.")

    server.enqueue({ blocks: [{ type: "text", text: "Go on answered." }] })
    expect((await turnlog(["run", "--continue", "go on"], { cwd, env })).code).toBe(0)
    const sent = JSON.stringify(server.requests().at(-1)!.body)
    expect(sent).toContain("Summary: three long questions, each answered.")
    expect(sent).not.toContain("Question 1.")
    expect(sent).toContain("Question 3.")
  })
})
