/**
 * Help as people read it. `turnlog --help`, `turnlog <command> --help` and
 * `turnlog help [<command>]` are answered here from `HelpText`, before the
 * parser runs; a command line the parser refuses is answered in one sentence
 * and the command's usage line. Headings are bold only where colour is
 * wanted: stdout a terminal, and neither `NO_COLOR` nor `--no-color`.
 */
import * as HelpText from "./HelpText.js"
import { GLOBAL_OPTIONS } from "./GlobalArgs.js"

/** What a command line asks of help: a topic (none: the top level), or help on a word that is no command. */
export type Request =
  | { readonly _tag: "Topic"; readonly topic: string | undefined }
  | { readonly _tag: "UnknownTopic"; readonly word: string }

/** The words after the global options (which `GlobalArgs.hoist` puts first, each with its value). */
const afterGlobals = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  let i = 0
  while (i < args.length && GLOBAL_OPTIONS.includes(args[i]!)) i += 2
  return args.slice(i)
}

/** The command a command line names (its first word after the global options), if it names one. */
export const commandOf = (args: ReadonlyArray<string>): string | undefined => {
  const first = afterGlobals(args)[0]
  return first !== undefined && HelpText.COMMANDS[first] !== undefined ? first : undefined
}

/** The first word after the global options when it is not an option: a command, or a word meant as one. */
export const firstWord = (args: ReadonlyArray<string>): string | undefined => {
  const first = afterGlobals(args)[0]
  return first === undefined || first.startsWith("-") ? undefined : first
}

/**
 * Whether `args` (the user's words, aliases expanded and global options
 * hoisted) ask for help: `--help` or `-h` anywhere before `--`.
 */
export const request = (args: ReadonlyArray<string>): Request | undefined => {
  const end = args.indexOf("--")
  const head = end < 0 ? args : args.slice(0, end)
  if (!head.some((a) => a === "--help" || a === "-h")) return undefined
  const word = firstWord(head)
  if (word === undefined || word === "help") return { _tag: "Topic", topic: undefined }
  return HelpText.COMMANDS[word] !== undefined ? { _tag: "Topic", topic: word } : { _tag: "UnknownTopic", word }
}

export interface Layout {
  /** Bold headings (a terminal that allows colour). */
  readonly color: boolean
  /** The width to wrap descriptions at. */
  readonly width: number
  readonly version: string
}

const bold = (layout: Layout, text: string) => (layout.color ? `\x1b[1m${text}\x1b[22m` : text)

/** `text` in lines of at most `width` characters (a longer word stays whole). */
export const wrap = (text: string, width: number): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else {
      line = line === "" ? word : `${line} ${word}`
    }
  }
  if (line !== "") lines.push(line)
  return lines
}

/** The widest first column laid out beside its text; a wider entry has its text on the lines below. */
const MAX_COLUMN = 30

/** Two columns, indented by two: the flags (or names) and their text, wrapped under itself. */
const table = (rows: ReadonlyArray<HelpText.Option>, width: number): Array<string> => {
  const column = Math.min(MAX_COLUMN, Math.max(...rows.filter((r) => r.flags.length <= MAX_COLUMN).map((r) => r.flags.length), 0))
  const indent = " ".repeat(2 + column + 2)
  const lines: Array<string> = []
  for (const row of rows) {
    const text = wrap(row.text, Math.max(20, width - indent.length))
    if (row.flags === "") {
      lines.push(...text.map((t) => indent + t))
    } else if (row.flags.length > column) {
      lines.push(`  ${row.flags}`, ...text.map((t) => indent + t))
    } else {
      const [head, ...rest] = text
      lines.push(`  ${row.flags.padEnd(column)}  ${head ?? ""}`.trimEnd(), ...rest.map((t) => indent + t))
    }
  }
  return lines
}

const section = (layout: Layout, heading: string, lines: ReadonlyArray<string>): Array<string> => ["", bold(layout, heading), ...lines]

const examples = (list: ReadonlyArray<string>) => list.map((e) => `  ${e}`)

const top = (layout: Layout): string => {
  const commands = HelpText.ORDER.map((name) => ({ flags: name, text: HelpText.COMMANDS[name]!.summary }))
  return [
    `turnlog ${layout.version}: agent sessions whose durable log is the source of truth`,
    ...section(layout, "Usage", [
      "  turnlog <command> [options]",
      "  turnlog                       the interactive session (on a terminal)",
    ]),
    ...section(layout, "Commands", [
      ...table([...commands, { flags: "help", text: "a command's options and examples: turnlog help <command>" }], layout.width),
    ]),
    ...section(layout, "Options for every command", table(HelpText.GLOBAL_OPTIONS, layout.width)),
    ...section(layout, "Examples", examples(HelpText.TOP_EXAMPLES)),
    ...section(layout, "Environment", table(HelpText.ENVIRONMENT, layout.width)),
    ...section(layout, "Files", table(HelpText.FILES, layout.width)),
    ...section(layout, "Exit codes", table(HelpText.EXIT_CODES, layout.width)),
  ].join("\n") + "\n"
}

const ofCommand = (layout: Layout, name: string, help: HelpText.CommandHelp): string =>
  [
    `turnlog ${name}: ${help.summary}`,
    ...section(layout, "Usage", [`  turnlog ${help.usage}`]),
    ...(help.about === undefined ? [] : ["", ...help.about.flatMap((line) => wrap(line, layout.width - 2).map((l) => `  ${l}`))]),
    ...section(layout, "Options", [
      ...table(help.options, layout.width),
      "  (and --home, --config, --store, --no-color: see turnlog --help)",
    ]),
    ...section(layout, "Examples", examples(help.examples)),
  ].join("\n") + "\n"

/** The help on `topic` (a command's name; none: the top level). */
export const render = (topic: string | undefined, layout: Layout): string => {
  const help = topic === undefined ? undefined : HelpText.COMMANDS[topic]
  return help === undefined ? top(layout) : ofCommand(layout, topic!, help)
}

/** The usage line shown under a refused command line. */
export const usageLine = (command: string | undefined): string =>
  command === undefined || HelpText.COMMANDS[command] === undefined
    ? "usage: turnlog <command> [options] (the commands: turnlog --help)"
    : `usage: turnlog ${HelpText.COMMANDS[command]!.usage} (more: turnlog help ${command})`

/** Each option given a value on the command line (`--mode yolo`, `--mode=yolo`), with it, up to `--`. */
const valued = (args: ReadonlyArray<string>): Array<readonly [string, string]> => {
  const pairs: Array<readonly [string, string]> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") break
    if (!arg.startsWith("-")) continue
    if (arg.includes("=")) pairs.push([arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)])
    else if (args[i + 1] !== undefined) pairs.push([arg, args[i + 1]!])
  }
  return pairs
}

/** The options whose value is one of a few words. */
const CHOICES: ReadonlyArray<string> = ["--mode", "--store", "--completions", "--log-level"]

/**
 * The parser's refusal (its text, styles taken out) as one sentence in
 * turnlog's words, naming the option where the parser did not:
 * `'many' is not a integer` is "--max-tokens takes a whole number, not 'many'".
 */
export const refusal = (text: string, args: ReadonlyArray<string>): string => {
  const said = text.replace(/\s+/g, " ").trim()
  const unexpected = /^Received unknown argument: '(.*)'$/.exec(said)
  if (unexpected !== null) return `unexpected argument '${unexpected[1]}'`
  const notInteger = /^'(.*)' is not a integer$/.exec(said)
  if (notInteger !== null) {
    const option = valued(args).find(([, value]) => value === notInteger[1])?.[0]
    return `${option ?? "the option"} takes a whole number, not '${notInteger[1]}'`
  }
  const cases = /^Expected one of the following cases: (.*)$/.exec(said)
  if (cases !== null) {
    const choices = cases[1]!.split(", ")
    const listed = `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}`
    const given = valued(args).find(([option, value]) => CHOICES.includes(option) && !choices.includes(value))
    return given === undefined ? `expected ${listed}` : `${given[0]} takes ${listed}, not '${given[1]}'`
  }
  return said.charAt(0).toLowerCase() + said.slice(1)
}
