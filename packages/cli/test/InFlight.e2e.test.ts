// `show` and `doctor` while another process is still running a turn of the
// session (an editor's `turnlog acp`, a `turnlog run` in another terminal):
// the turn is in flight there, not left by a crash. Once that process is
// gone, the same open turn is one a dead process left. `sessions` says the same.
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { BIN, cleanEnv, removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

afterAll(removeTempDirs)

describe("show and doctor of a session whose turn runs in another process", () => {
  it("say which process is writing it, and call the turn left open only once that process is gone", async () => {
    const home = tempDir("in-flight-home")
    const cwd = tempDir("in-flight-cwd")
    const script = join(home, "stall.jsonl")
    const chunks = [
      { type: "block-start", index: 0, blockType: "text" },
      { type: "text-delta", index: 0, text: "working on it\n" },
    ]
    writeFileSync(script, JSON.stringify({ chunks, stall: true }) + "\n")
    const child = spawn(process.execPath, [BIN, "--home", home, "run", "take your time"], {
      cwd,
      env: { ...cleanEnv(), TURNLOG_SCRIPTED_MODEL: script },
    })
    let stderr = ""
    child.stderr.on("data", (data: Buffer) => void (stderr += data.toString()))
    // The answer's first line is out: the turn is durable and in flight.
    await new Promise<void>((resolve) => child.stdout.on("data", (data: Buffer) => data.toString().includes("working on it") && resolve()))
    const id = /^turnlog: session (\S+)$/m.exec(stderr)![1]!
    const pid = child.pid!
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
    try {
      const shown = await turnlog(["show", id], { cwd, env: { TURNLOG_HOME: home } })
      expect(shown.stdout.trimEnd().split("\n").at(-1)).toBe(`turn 1 still running: process ${pid} is writing this session`)
      const doctor = await turnlog(["doctor", id], { cwd, env: { TURNLOG_HOME: home } })
      expect(doctor.stdout.trimEnd().split("\n").slice(1).map((l) => l.replace(/sha256:[0-9a-f]{12}…/, "sha256:…"))).toEqual([
        "  system prompt of the last request: sha256:… (default)",
        `  turn in flight: process ${pid} is writing this session`,
        "  ok",
      ])
      const listed = await turnlog(["sessions", "--json"], { cwd, env: { TURNLOG_HOME: home } })
      expect(JSON.parse(listed.stdout).map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([[id, "running"]])
    } finally {
      child.kill("SIGKILL")
      await exited
    }
    const after = await turnlog(["show", id], { cwd, env: { TURNLOG_HOME: home } })
    expect(after.stdout.trimEnd().split("\n").at(-1)).toBe(
      "turn 1 still open: the process stopped mid-turn (it is closed as interrupted when the session is next used)",
    )
    const listed = await turnlog(["sessions", "--json"], { cwd, env: { TURNLOG_HOME: home } })
    expect(JSON.parse(listed.stdout).map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([[id, "interrupted"]])
  })
})
