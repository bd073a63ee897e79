// Control sequences in what a model, a tool or a stored session says are
// shown on the terminal, never obeyed: a model could otherwise write the
// clipboard (OSC 52), retitle the window or clear the screen through `run`,
// `show` and `sessions`. `--json` and the log keep the exact text.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { visible } from "../src/Visible.js"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir, textScript } from "./support/turnlog.js"

afterAll(removeTempDirs)

const CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"
const CLEAR = "\x1b[2J"
const TITLE = "\x1b]0;owned\x07"

describe("visible", () => {
  it("shows each control character but tab, newline and a CRLF's return as \\xNN", () => {
    expect(visible(`a${CLIPBOARD}b${CLEAR}\tc\r\nd\re\x9bf\x7f\x00`)).toBe(
      "a\\x1b]52;c;cm0gLXJmIH4=\\x07b\\x1b[2J\tc\r\nd\\x0de\\x9bf\\x7f\\x00",
    )
    expect(visible("plain text, ünïcödé and emoji 🙂\n")).toBe("plain text, ünïcödé and emoji 🙂\n")
  })
})

describe("run, show and sessions print control sequences visibly; --json and the log keep them", () => {
  it("a model's answer and a prompt with escape sequences", async () => {
    const home = tempDir("escapes-home")
    const cwd = tempDir("escapes-cwd")
    const answer = `Copied${CLIPBOARD}. Cleared${CLEAR}.`
    const prompt = `hello ${TITLE}there`
    const run = await turnlog(["run", prompt], { cwd, env: { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: textScript(home, [answer]) } })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toBe("Copied\\x1b]52;c;cm0gLXJmIH4=\\x07. Cleared\\x1b[2J.\n")
    const id = /^turnlog: session (\S+)$/m.exec(run.stderr)![1]!

    const shown = await turnlog(["show", id], { cwd, env: { TURNLOG_HOME: home } })
    expect(shown.stdout).not.toContain("\x1b")
    expect(shown.stdout.split("\n").slice(3, 8).map((l) => l.replace(/sha256:[0-9a-f]{12}…/, "sha256:…"))).toEqual([
      "user:",
      "  hello \\x1b]0;owned\\x07there",
      "system prompt: sha256:… (default)",
      "assistant:",
      "  Copied\\x1b]52;c;cm0gLXJmIH4=\\x07. Cleared\\x1b[2J.",
    ])
    const listed = await turnlog(["sessions"], { cwd, env: { TURNLOG_HOME: home } })
    expect(listed.stdout.split("\n")[1]!.endsWith("  hello \\x1b]0;owned\\x07there")).toBe(true)

    const shownJson = JSON.parse((await turnlog(["show", id, "--json"], { cwd, env: { TURNLOG_HOME: home } })).stdout) as {
      turns: Array<{ items: Array<{ text: string }> }>
    }
    expect(shownJson.turns[0]!.items.flatMap((i) => (i.text === undefined ? [] : [i.text]))).toEqual([prompt, answer])
    const listedJson = JSON.parse((await turnlog(["sessions", "--json"], { cwd, env: { TURNLOG_HOME: home } })).stdout) as Array<
      { title: string }
    >
    expect(listedJson[0]!.title).toBe(prompt)
    const [file] = readdirSync(join(home, "sessions")).filter((f) => f.endsWith(".jsonl"))
    const log = readFileSync(join(home, "sessions", file!), "utf8")
    expect(log).toContain(JSON.stringify(answer))
    expect(log).toContain(JSON.stringify(prompt))
  })
})
