// A mistyped option is a usage error naming it and the closest known one,
// never part of the prompt: `run --contineu next step` sent "--contineu next
// step" to the model in a new session. A prompt that starts with a dash goes
// after `--`.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Command, HelpDoc } from "@effect/cli"
import { afterAll, describe, expect, it } from "vitest"
import { command } from "../src/Cli.js"
import { COMMAND_OPTIONS } from "../src/UnknownOptions.js"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir, textScript } from "./support/turnlog.js"

afterAll(removeTempDirs)

describe("an unknown option", () => {
  it.each([
    [
      ["run", "--contineu", "next", "step"],
      "turnlog: unknown option --contineu for turnlog run (did you mean --continue?); a prompt that starts with a dash goes after --: turnlog run -- <prompt>\n",
    ],
    [
      ["run", "fix", "it", "--allow-tool"],
      "turnlog: unknown option --allow-tool for turnlog run (did you mean --allow-tools?); a prompt that starts with a dash goes after --: turnlog run -- <prompt>\n",
    ],
    [["sessions", "--jsno"], "turnlog: unknown option --jsno for turnlog sessions (did you mean --json?)\n"],
    [["--hom", "/tmp", "sessions"], "turnlog: unknown option --hom for turnlog (did you mean --home?)\n"],
    [["run", "--model"], "turnlog: option --model needs a value (turnlog run --model <value>)\n"],
    [["run", "--continue", "--session"], "turnlog: option --session needs a value (turnlog run --session <value>)\n"],
  ])("turnlog %j is a usage error (exit 2) and makes no session", async (args, message) => {
    const home = tempDir("unknown-home")
    const result = await turnlog(args, {
      cwd: tempDir("unknown-cwd"),
      env: { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: textScript(home, ["an answer"]) },
    })
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 2, stdout: "", stderr: message })
    expect(existsSync(join(home, "sessions"))).toBe(false)
  })

  it("a prompt that starts with a dash is passed after --, whole", async () => {
    const home = tempDir("dash-home")
    const result = await turnlog(["run", "--", "--contineu", "is", "a", "word"], {
      cwd: tempDir("dash-cwd"),
      env: { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: textScript(home, ["an answer"]) },
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe("an answer\n")
    const [file] = readdirSync(join(home, "sessions")).filter((f) => f.endsWith(".jsonl"))
    const user = readFileSync(join(home, "sessions", file!), "utf8").split("\n")
      .map((line) => (line === "" ? undefined : JSON.parse(line) as { type?: string; data?: { message: { content: Array<{ text: string }> } } }))
      .find((e) => e?.type === "user/message")
    expect(user!.data!.message.content[0]!.text).toBe("--contineu is a word")
  })
})

describe("the table of each command's options", () => {
  it("is the options the parser declares, with whether each takes a value", () => {
    const help = HelpDoc.toAnsiText(Command.getHelp(command, {} as never)).replace(/\x1b\[[0-9;]*m/g, "")
    const declared: Record<string, Record<string, boolean>> = {}
    for (const match of help.matchAll(/^\s+- (\w+) (.*)$/gm)) {
      const options: Record<string, boolean> = {}
      // `[--name]`, `[--name value]`, `[(-a, --name value)]`: every name, with whether a value follows.
      for (const option of match[2]!.matchAll(/\[\(?(-[^\]()]+)\)?\]/g)) {
        const words = option[1]!.split(" ")
        const takesValue = !words.at(-1)!.startsWith("-")
        for (const word of words) if (word.startsWith("-")) options[word.replace(/,$/, "")] = takesValue
      }
      declared[match[1]!] = options
    }
    expect(declared).toEqual(COMMAND_OPTIONS)
  })
})
