// Help as a person meets it through the command line (in-process): `turnlog --help` under
// NO_COLOR, `turnlog help <command>` as `turnlog <command> --help`, a refused
// command line said with its usage line; `-v` and `-V` print the version.
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"
import { VERSION } from "../src/Version.js"

afterAll(removeTempDirs)

describe("help and the version", () => {
  const cwd = tempDir("help-cwd")

  it("turnlog --help under NO_COLOR lists the commands, environment and exit codes, plain", async () => {
    const result = await turnlog(["--help"], { cwd, env: { NO_COLOR: "1" } })
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" })
    const lines = result.stdout.split("\n")
    expect(lines.slice(0, 10)).toEqual([
      `turnlog ${VERSION}: agent sessions whose durable log is the source of truth`,
      "",
      "Usage",
      "  turnlog <command> [options]",
      "  turnlog                       the interactive session (on a terminal)",
      "",
      "Commands",
      "  chat      the interactive session: a conversation in the terminal",
      "  run       one turn: the answer on stdout, tool activity on stderr",
      "  acp       the Agent Client Protocol on stdio, for editors (Zed and others)",
    ])
    expect(lines).toContain("  help      a command's options and examples: turnlog help <command>")
    expect(lines).toContain("  TURNLOG_HOME            where sessions and the config live (default:")
    expect(lines).toContain("  2              fix the command line or the config first")
    expect(result.stdout).not.toContain("\x1b[")
    expect(result.stdout).not.toContain("A user-defined piece of text")
  })

  it("turnlog help run is turnlog run --help: synopsis, options, examples", async () => {
    const [aliased, flagged] = await Promise.all([turnlog(["help", "run"], { cwd }), turnlog(["run", "--help"], { cwd })])
    expect(aliased.code).toBe(0)
    expect(aliased).toEqual(flagged)
    const lines = aliased.stdout.split("\n")
    expect(lines.slice(0, 4)).toEqual([
      "turnlog run: one turn: the answer on stdout, tool activity on stderr",
      "",
      "Usage",
      "  turnlog run [options] [--] [<prompt>...]",
    ])
    expect(lines).toContain("  --continue                  continue the latest session in this directory")
    expect(lines).toContain('  git diff | turnlog run "Review this change"')
  })

  it.each([
    [["help", "teleport"], "turnlog: there is no command teleport (the commands: turnlog --help)\n"],
    [["help", "sesions"], "turnlog: unknown command sesions (did you mean turnlog sessions?)\n"],
    [["delete"], "turnlog: missing argument <id>\nusage: turnlog delete <id> (more: turnlog help delete)\n"],
    [["teleport"], "turnlog: unknown command teleport\nusage: turnlog <command> [options] (the commands: turnlog --help)\n"],
  ])("turnlog %j is a usage error (exit 2) in one sentence", async (args, stderr) => {
    const result = await turnlog(args, { cwd, env: { TURNLOG_HOME: tempDir("help-home") } })
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 2, stdout: "", stderr })
  })

  it("turnlog --completions bash still prints a completion script", async () => {
    const result = await turnlog(["--completions", "bash"], { cwd })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("complete -F _turnlog_bash_completions")
  })

  it.each([["-v"], ["-V"]])("turnlog %s prints the version", async (flag) => {
    const result = await turnlog([flag], { cwd })
    expect({ code: result.code, stdout: result.stdout.trim(), stderr: result.stderr }).toEqual({ code: 0, stdout: VERSION, stderr: "" })
  })
})
