// The help people read (`turnlog --help`, `turnlog help <command>`) as a pure
// function of the topic and the layout; what the parser refuses, said in one
// sentence naming the option.
import { describe, expect, it } from "vitest"
import * as Help from "../src/Help.js"
import * as HelpText from "../src/HelpText.js"
import { COMMAND_OPTIONS } from "../src/UnknownOptions.js"

const plain: Help.Layout = { color: false, width: 80, version: "9.9.9" }

/** The lines of `section` in `text`, up to the next blank line. */
const sectionOf = (text: string, heading: string): Array<string> => {
  const lines = text.split("\n")
  const start = lines.indexOf(heading)
  const end = lines.indexOf("", start)
  return lines.slice(start + 1, end < 0 ? undefined : end)
}

describe("the help text", () => {
  it("covers every command the parser knows, each option by its exact name", () => {
    expect([...HelpText.ORDER].sort()).toEqual(Object.keys(COMMAND_OPTIONS).sort())
    for (const [name, options] of Object.entries(COMMAND_OPTIONS)) {
      const documented = HelpText.COMMANDS[name]!.options.flatMap((o) => o.flags.split(/[ ,]+/).filter((w) => w.startsWith("-")))
      expect({ name, options: documented.sort() }).toEqual({ name, options: Object.keys(options).sort() })
    }
  })

  it("has no generated filler", () => {
    for (const topic of [undefined, ...HelpText.ORDER]) {
      const text = Help.render(topic, plain)
      expect(text).not.toMatch(/A user-defined piece of text|This setting is optional|A true or false value/)
      expect(text).not.toContain("\x1b[")
    }
  })

  it("lists the commands with one line each, then the help command", () => {
    const commands = sectionOf(Help.render(undefined, plain), "Commands")
    expect(commands.map((line) => line.slice(2, 10).trim())).toEqual([...HelpText.ORDER, "help"])
    expect(commands.every((line) => line.length <= 80)).toBe(true)
    expect(commands[1]).toBe("  run       one turn: the answer on stdout, tool activity on stderr")
  })

  it("says the exit codes the command uses", () => {
    expect(sectionOf(Help.render(undefined, plain), "Exit codes")).toEqual([
      "  0              done (a turn that stopped at the output limit included)",
      "  1              failed: a turn ended in error, a session cannot be read",
      "  2              fix the command line or the config first",
      "  130, 143, 129  stopped by Ctrl-C, SIGTERM, the terminal closing (the turn is",
      "                 logged as cancelled)",
      "  141            stdout's reader went away (`turnlog run … | head`)",
    ])
  })

  it("names the environment variables the command reads", () => {
    const names = sectionOf(Help.render(undefined, plain), "Environment").map((line) => line.trim().split(/ {2,}/)[0])
    for (
      const name of [
        "TURNLOG_HOME",
        "TURNLOG_CONFIG",
        "TURNLOG_DATABASE_URL",
        "TURNLOG_SANDBOX",
        "TURNLOG_SCRIPTED_MODEL",
        "NO_COLOR",
        "TURNLOG_DEBUG",
        "TURNLOG_COMPILE_CACHE",
      ]
    ) {
      expect(names).toContain(name)
    }
    expect(names).toContain("ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, DEEPSEEK_API_KEY, MISTRAL_API_KEY")
  })

  it("gives a command its synopsis, options with defaults, and examples", () => {
    const text = Help.render("doctor", plain)
    expect(text).toBe([
      "turnlog doctor: check what this build makes of a session's log, changing nothing",
      "",
      "Usage",
      "  turnlog doctor [<id> | --all] [--json]",
      "",
      "  <id> is a session id, or any unique prefix or suffix of one; without one, the",
      "  latest session in this directory.",
      "",
      "Options",
      "  --all   examine every stored session, and name the ones that cannot be read",
      "  --json  print the report as JSON",
      "  (and --home, --config, --store, --no-color: see turnlog --help)",
      "",
      "Examples",
      "  turnlog doctor",
      "  turnlog doctor 303adb34 --json",
      "  turnlog doctor --all",
      "",
    ].join("\n"))
  })

  it("is bold in its headings only where colour is wanted", () => {
    const styled = Help.render("run", { ...plain, color: true })
    expect(styled).toContain("\n\x1b[1mOptions\x1b[22m\n")
    expect(styled.replace(/\x1b\[(1|22)m/g, "")).toBe(Help.render("run", plain))
  })
})

describe("what asks for help", () => {
  it.each([
    [["--help"], { _tag: "Topic", topic: undefined }],
    [["-h"], { _tag: "Topic", topic: undefined }],
    [["run", "--help"], { _tag: "Topic", topic: "run" }],
    [["--home", "/h", "show", "x", "-h"], { _tag: "Topic", topic: "show" }],
    [["help", "--help"], { _tag: "Topic", topic: undefined }],
    [["teleport", "--help"], { _tag: "UnknownTopic", word: "teleport" }],
  ])("turnlog %j", (args, request) => {
    expect(Help.request(args)).toEqual(request)
  })

  it.each([[["run", "--", "--help"]], [["sessions"]], [[]]])("not turnlog %j", (args) => {
    expect(Help.request(args)).toBeUndefined()
  })
})

describe("a command line the parser refuses", () => {
  it.each([
    ["Missing argument <id>\n\n", ["delete"], "missing argument <id>"],
    ["'many' is not a integer", ["run", "--max-tokens", "many", "hi"], "--max-tokens takes a whole number, not 'many'"],
    [
      "Expected one of the following cases: ask, read-only, auto-edit, full-access",
      ["run", "--mode=yolo", "hi"],
      "--mode takes ask, read-only, auto-edit or full-access, not 'yolo'",
    ],
    ["Expected one of the following cases: jsonl, sqlite, postgres", ["--store", "mongo", "sessions"], "--store takes jsonl, sqlite or postgres, not 'mongo'"],
    ["Received unknown argument: 'b'", ["show", "a", "b"], "unexpected argument 'b'"],
  ])("%j is said as one sentence", (said, args, sentence) => {
    expect(Help.refusal(said, args)).toBe(sentence)
  })

  it("is shown with the command's usage line", () => {
    expect(Help.usageLine("export")).toBe("usage: turnlog export [<id>] [--html] [-o <file>] (more: turnlog help export)")
    expect(Help.usageLine(undefined)).toBe("usage: turnlog <command> [options] (the commands: turnlog --help)")
  })
})
