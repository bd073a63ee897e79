// A stdout that fails other than by a closed pipe (a full disk, `> /dev/full`)
// ends the command with one sentence on stderr and exit 1 — it printed a
// 21-line stack trace.
import { spawn } from "node:child_process"
import { closeSync, existsSync, openSync } from "node:fs"
import { afterAll, describe, expect, it } from "vitest"
import { BIN, cleanEnv, hasStackTrace, removeTempDirs, tempDir, textScript, turnlog } from "./support/turnlog.js"

afterAll(removeTempDirs)

const toDevFull = (args: ReadonlyArray<string>, env: Record<string, string>, cwd: string) =>
  new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const full = openSync("/dev/full", "w")
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...cleanEnv(), ...env }, stdio: ["ignore", full, "pipe"] })
    closeSync(full)
    let stderr = ""
    child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    child.on("close", (code) => resolve({ code, stderr }))
  })

describe.skipIf(!existsSync("/dev/full"))("a stdout that cannot be written", () => {
  it("show to /dev/full says so in one sentence and exits 1", async () => {
    const home = tempDir("full-home")
    const cwd = tempDir("full-cwd")
    const env = { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: textScript(home, ["an answer"]) }
    const made = await turnlog(["run", "hello"], { cwd, env })
    expect(made.code, made.stderr).toBe(0)
    const id = /session (\S+)/.exec(made.stderr)?.[1] ?? ""
    const result = await toDevFull(["show", id], env, cwd)
    expect(hasStackTrace(result.stderr)).toBe(false)
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 1,
      stderr: "turnlog: standard output cannot be written: ENOSPC: no space left on device, write\n",
    })
  })
})
