// `turnlog fork <id> [--at <turn>]` through the command line (in-process) and the loopback
// Anthropic wire: the new id alone on stdout; continuing the fork sends the
// copied answer with its signature (replayed natively) and nothing after the
// turn; `show` says where the fork came from; `doctor` finds it clean; the
// original is untouched; a turn the session does not have is a usage error
// naming the range.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { loopbackHome } from "./support/loopbackHome.js"
import { turnlog } from "./support/inProcess.js"
import { logLines, removeTempDirs, sessionIds, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 })
afterAll(removeTempDirs)

const signatureOf = (id: string) => Buffer.from(`signature of ${id}`).toString("base64")

const signedReply = (id: string): Loopback.ReplyInput => ({
  blocks: [
    { type: "reasoning", text: `Think (${id}).`, signature: signatureOf(id) },
    { type: "text", text: `Answer ${id}.` },
  ],
})

describe("turnlog fork", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  it("copies the session up to a turn into a new one that continues natively and says where it came from", async () => {
    const { home, env } = loopbackHome(server, {
      model: "loop/m",
      providers: {
        loop: {
          api: "anthropic-messages",
          models: [{ id: "m", contextWindow: 200000, maxTokens: 8192, reasoning: true }],
        },
      },
    }, "fork")
    const cwd = tempDir("fork-cwd")
    const run = async (id: string, args: ReadonlyArray<string>) => {
      const before = server.requests().length
      server.enqueue(signedReply(id))
      const outcome = await turnlog(["run", ...args], { cwd, env })
      expect(outcome.code, outcome.stderr).toBe(0)
      expect(outcome.stdout).toContain(`Answer ${id}.`)
      return JSON.stringify(server.requests()[before]!.body)
    }

    await run("one", ["First?"])
    await run("two", ["--continue", "Second?"])
    const [original] = sessionIds(home)
    const originalLog = logLines(home, original!)

    const forked = await turnlog(["fork", original!, "--at", "1"], { cwd, env })
    expect(forked.stderr).toBe(`turnlog: forked session ${original} at turn 1\n`)
    expect(forked.code).toBe(0)
    expect(forked.stdout).toMatch(/^\S+\n$/)
    const fork = forked.stdout.trim()
    expect(sessionIds(home).sort()).toEqual([original, fork].sort())

    // The fork's log: the original's first turn as it was, then where it came from.
    const forkLog = logLines(home, fork)
    const firstTurnEnd = originalLog.findIndex((line) => line.type === "turn/end")
    expect(forkLog.slice(1, firstTurnEnd + 1)).toEqual(originalLog.slice(1, firstTurnEnd + 1))
    expect(forkLog.slice(firstTurnEnd + 1).map((line) => [line.type, line.data])).toEqual([
      ["session/fork", { forkedFrom: { session: original, turn: 1 } }],
    ])

    // Continued: the first answer goes with its signature; the second turn is not there.
    const wire = await run("three", ["--session", fork, "Third?"])
    expect(wire).toContain(signatureOf("one"))
    expect(wire).toContain("Answer one.")
    expect(wire).not.toContain("Second?")
    expect(wire).not.toContain("Answer two.")

    const show = await turnlog(["show", fork], { cwd, env })
    expect(show.code, show.stderr).toBe(0)
    expect(show.stdout).toContain(`\n── turn 2\nforked from session ${original} after its turn 1 (the turns before are its history)\nuser:\n  Third?\n`)
    const doctor = await turnlog(["doctor", fork], { cwd, env })
    expect(doctor.code, doctor.stderr).toBe(0)
    expect(doctor.stdout).toContain("2 replay natively, 0 degrade")

    // The original is as it was.
    expect(logLines(home, original!)).toEqual(originalLog)

    // Forked by default at its last turn.
    const whole = await turnlog(["fork", original!.slice(-8)], { cwd, env })
    expect(whole.stderr).toBe(`turnlog: forked session ${original} at turn 2\n`)
    const wholeLog = logLines(home, whole.stdout.trim())
    expect(wholeLog.slice(1, -1)).toEqual(originalLog.slice(1))

    for (const at of ["3", "0"]) {
      const refused = await turnlog(["fork", original!, "--at", at], { cwd, env })
      expect([refused.code, refused.stdout, refused.stderr]).toEqual([
        2,
        "",
        `turnlog: --at ${at} is not a turn of session ${original}: give 1 to 2\n`,
      ])
    }
    const notANumber = await turnlog(["fork", original!, "--at", "last"], { cwd, env })
    expect([notANumber.code, notANumber.stderr]).toEqual([2, `turnlog: --at "last" is not a turn: give a turn number, 1 or more\n`])
    expect(sessionIds(home).length).toBe(3)
  })
})
