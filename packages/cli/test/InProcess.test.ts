// The in-process command line (support/inProcess.ts) leaves this process as
// it found it: its environment, its working directory, its stdout and stderr.
import { afterAll, describe, expect, it } from "vitest"
import { runCli } from "./support/inProcess.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

describe("runCli", () => {
  it("--no-color and a credential in the environment change nothing of this process", async () => {
    const env = { ...process.env }
    const cwd = process.cwd()
    const { stdout, stderr } = { stdout: process.stdout.write, stderr: process.stderr.write }
    const home = tempDir("inprocess-home")
    const result = await runCli(["--no-color", "sessions"], { cwd: home, env: { TURNLOG_HOME: home, ANTHROPIC_API_KEY: "sk-ant-inprocess-0123456789" } })
    expect(result).toEqual({ exitCode: 0, stdout: "no sessions yet (start one with: turnlog run <prompt>)\n", stderr: "" })
    expect(process.env).toEqual(env)
    expect(process.cwd()).toBe(cwd)
    expect(process.stdout.write).toBe(stdout)
    expect(process.stderr.write).toBe(stderr)
  })

  it("reads stdin from its options and the working directory from its cwd", async () => {
    const home = tempDir("inprocess-stdin")
    const missing = await runCli(["import", "-"], { cwd: home, env: { TURNLOG_HOME: home }, stdin: "not a log\n" })
    expect(missing.exitCode).toBe(1)
    expect(missing.stdout).toBe("")
    expect(missing.stderr).toMatch(/^turnlog: stdin:1: .*nothing imported\n$/)
    const latest = await runCli(["doctor"], { cwd: home, env: { TURNLOG_HOME: home } })
    expect(latest.exitCode).toBe(1)
    expect(latest.stderr).toContain(home)
  })
})
