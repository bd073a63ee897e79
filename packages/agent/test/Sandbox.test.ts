// run_command in the sandbox (bubblewrap, where it works): a command cannot
// read the environment of the process that runs it, nor of any process
// outside, and writes only in the session's directory. Without a sandbox the
// same command does read it — which is what the sandbox is for.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SessionId } from "@turnlog/protocol"
import * as Builtins from "../src/Builtins.js"
import * as Sandbox from "../src/Sandbox.js"
import * as Tools from "../src/Tools.js"

const created: Array<string> = []
afterAll(() => {
  for (const dir of created) fs.rmSync(dir, { recursive: true, force: true })
})

const temporaryDirectory = (prefix: string, parent = os.tmpdir()) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(parent, prefix)))
  created.push(dir)
  return dir
}

const setup = (options: Builtins.Options) => {
  const cwd = temporaryDirectory("turnlog-sandbox-")
  const tools = Tools.make(Builtins.tools(options))
  const context: Tools.ToolContext = { sessionId: SessionId.make("s-sandbox"), callId: "call-1", cwd }
  const run = (command: string) => Effect.flatMap(tools.prepare({ name: "run_command", arguments: JSON.stringify({ command }) }, context), (p) => p.run)
  return { cwd, run }
}

// This process's environment block holds PATH (vitest starts its workers with one); the commands' does not.
const commandEnv = { PATH: "/usr/bin:/bin", HOME: os.homedir() }
const readParents = `cat /proc/$PPID/environ /proc/${process.pid}/environ 2>/dev/null | base64 -w0`
const decoded = (output: string) => Buffer.from(output, "base64").toString("latin1")

// Skipped where no sandbox works, unless TURNLOG_REQUIRE_SANDBOX is set (as CI does): then they fail.
const sandboxed = (process.env.TURNLOG_REQUIRE_SANDBOX ?? "") !== "" || (await Sandbox.detect(commandEnv.PATH)) !== undefined

describe("run_command without a sandbox", () => {
  it.live("a command can read this process's environment block (what the sandbox prevents)", () =>
    Effect.gen(function*() {
      const { run } = setup({ sandbox: "off", commandEnv })
      expect(decoded(yield* run(readParents))).toContain(`PATH=${process.env.PATH}`)
    }))
})

describe.skipIf(!sandboxed)("run_command in the sandbox (bubblewrap)", () => {
  it.live("a command sees no process outside it: no other environment block, its parent is its own", () =>
    Effect.gen(function*() {
      const { run } = setup({ commandEnv })
      const seen = decoded(yield* run(readParents))
      expect(seen).not.toContain(`PATH=${process.env.PATH}`)
      // Its parent is the sandbox's first process, started with the command's environment.
      expect(seen.split("\0").filter((entry) => entry !== "").sort()).toEqual([`HOME=${commandEnv.HOME}`, `PATH=${commandEnv.PATH}`])
      expect(yield* run(`test -e /proc/${process.pid} && echo visible || echo hidden`)).toBe("hidden\n")
    }))

  it.live("a command writes in the session's directory and its own /tmp, nowhere else", () =>
    Effect.gen(function*() {
      const { cwd, run } = setup({ commandEnv })
      // Not under /tmp, which the sandbox replaces with its own. The braces put the
      // shell's own refusal on stdout, in order with what the command prints.
      const outside = temporaryDirectory("turnlog-sandbox-outside-", "/var/tmp")
      const output = yield* run(`echo in > inside.txt; echo tmp > /tmp/t && cat /tmp/t; { echo out > ${outside}/x; } 2>&1 || echo refused`)
      expect(output).toMatch(/^tmp\n.*Read-only file system\nrefused\n$/s)
      expect(fs.readFileSync(path.join(cwd, "inside.txt"), "utf8")).toBe("in\n")
      expect(fs.readdirSync(outside)).toEqual([])
    }))
})

describe("where no sandbox works", () => {
  const noBwrap = { PATH: "/nonexistent" }
  it.live("`auto` runs the command as it is", () =>
    Effect.gen(function*() {
      const { run } = setup({ commandEnv: noBwrap })
      expect(yield* run("echo ran")).toBe("ran\n")
    }))

  it.live("`require` refuses to run it, saying why", () =>
    Effect.gen(function*() {
      const { cwd, run } = setup({ commandEnv: noBwrap, sandbox: "require" })
      const error = yield* Effect.flip(run("echo ran > ran.txt"))
      expect(error.message).toBe(
        "run_command failed: commands must run in a sandbox and none works on this machine (install bubblewrap: bwrap on the PATH)",
      )
      expect(fs.existsSync(path.join(cwd, "ran.txt"))).toBe(false)
    }))
})
