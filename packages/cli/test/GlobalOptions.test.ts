// A global option given last, without its value (`turnlog sessions --home`),
// with an empty one (`--home=`), or twice, is a usage error that names the
// option, not an "Invalid subcommand".
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

describe("a global option without its value", () => {
  it.each([
    [["sessions", "--home"], "turnlog: --home needs a value (--home <dir>)\n"],
    [["run", "hi", "--config"], "turnlog: --config needs a value (--config <file>)\n"],
    [["doctor", "--store", "--", "x"], "turnlog: --store needs a value (--store jsonl|sqlite|postgres)\n"],
    [["--home=", "sessions"], "turnlog: --home needs a value (--home <dir>)\n"],
    [["sessions", "--config="], "turnlog: --config needs a value (--config <file>)\n"],
  ])("turnlog %j names the option that lacks a value (exit 2)", async (args, message) => {
    const result = await turnlog(args, { cwd: tempDir("globals-cwd"), env: { TURNLOG_HOME: tempDir("globals-home") } })
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: message })
  })
})

describe("a global option given twice", () => {
  it.each([
    [["--home", "/a", "sessions", "--home", "/b"], "turnlog: --home is given more than once: give it once (--home <dir>)\n"],
    [["--store=sqlite", "doctor", "--store", "jsonl"], "turnlog: --store is given more than once: give it once (--store jsonl|sqlite|postgres)\n"],
  ])("turnlog %j is a usage error naming it (exit 2)", async (args, message) => {
    const result = await turnlog(args, { cwd: tempDir("globals-cwd"), env: { TURNLOG_HOME: tempDir("globals-home") } })
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: message })
  })
})

describe("help and the version asked for after global options", () => {
  it.each([["--help"], ["--version"]])("turnlog --home <dir> --store sqlite %s answers as turnlog %s does", async (flag) => {
    const cwd = tempDir("globals-help-cwd")
    const plain = await turnlog([flag], { cwd })
    const after = await turnlog(["--home", tempDir("globals-help-home"), "--store", "sqlite", flag], { cwd })
    expect({ code: plain.code, stderr: plain.stderr }).toEqual({ code: 0, stderr: "" })
    expect({ code: after.code, stdout: after.stdout, stderr: after.stderr }).toEqual({ code: 0, stdout: plain.stdout, stderr: "" })
  })
})
