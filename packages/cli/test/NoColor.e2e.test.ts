// Colour through the real binary: help is styled only on a terminal, and
// never under NO_COLOR or --no-color (a terminal given by `script`, whose
// typescript is read back); piped, it is plain text.
import { execFile } from "node:child_process"
import { afterAll, describe, expect, it } from "vitest"
import { BIN, cleanEnv, removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

afterAll(removeTempDirs)

const ESC = "\x1b["

/** `turnlog <args>` on a pseudo-terminal: what the terminal received. */
const onTerminal = (args: string, env: Record<string, string> = {}): Promise<string> =>
  new Promise((resolve, reject) => {
    const environment: Record<string, string> = { ...cleanEnv(), ...env }
    if (env["NO_COLOR"] === undefined) delete environment["NO_COLOR"]
    execFile(
      "script",
      ["-qec", `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${args}`, "/dev/null"],
      { env: environment },
      (error, stdout) => (error === null ? resolve(stdout) : reject(error)),
    )
  })

describe("colour", () => {
  it("styles help on a terminal", async () => {
    const shown = await onTerminal("run --help")
    expect(shown).toContain("--allow-tools")
    expect(shown).toContain(ESC)
  })

  it.each([
    ["NO_COLOR=1", "run --help", { NO_COLOR: "1" }],
    ["--no-color", "--no-color run --help", {}],
    ["--no-color after the command", "run --help --no-color", {}],
  ])("keeps help plain on a terminal under %s", async (_, args, env) => {
    const shown = await onTerminal(args, env)
    expect(shown).toContain("--allow-tools")
    expect(shown).not.toContain(ESC)
  })

  it("keeps help plain when piped", async () => {
    const result = await turnlog(["--help"], { cwd: tempDir("color-cwd") })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("turnlog")
    expect(result.stdout).not.toContain(ESC)
  })
})
