/**
 * Options a command does not know are refused before the parser runs: the
 * parser would take `run --contineu next step` as a prompt that starts with
 * "--contineu" and send it to the model in a new session. The refusal names
 * the option and the closest one the command knows; a prompt that really
 * starts with a dash goes after `--`. The table below is the commands'
 * options as `Cli.ts` declares them (a test holds the two together). An
 * option that takes a value and is given none is refused the same way.
 */

/** Each command's options: `true` when the option takes a value. */
export const COMMAND_OPTIONS: Readonly<Record<string, Readonly<Record<string, boolean>>>> = {
  run: {
    "--model": true,
    "--session": true,
    "--continue": false,
    "--max-tokens": true,
    "--allow-tools": false,
    "--mode": true,
    "--reasoning": true,
    "--json": false,
  },
  chat: { "--model": true, "--session": true, "--continue": false, "-c": false, "--resume": false, "-r": false, "--mode": true, "--reasoning": true },
  acp: {},
  sessions: { "--json": false },
  show: { "--json": false, "--follow": false, "--forever": false },
  doctor: { "--json": false, "--all": false },
  demo: {},
  compact: { "--session": true, "--continue": false, "--focus": true },
  export: { "--html": false, "--output": true, "-o": true },
  import: {},
  delete: {},
  fork: { "--at": true },
  prune: { "--older-than": true, "--dry-run": false },
  view: {},
  models: {},
}

/** Global options (hoisted before the command by `GlobalArgs`), all with a value. */
const GLOBAL: Readonly<Record<string, boolean>> = { "--home": true, "--config": true, "--store": true }

/** What the parser itself answers anywhere: help, the version, the wizard, completions, the log level. */
const BUILT_IN: Readonly<Record<string, boolean>> = {
  "--help": false,
  "-h": false,
  "--version": false,
  "--wizard": false,
  "--completions": true,
  "--log-level": true,
}

/** Edit distance (insertions, deletions, substitutions, adjacent swaps). */
export const distance = (a: string, b: string): number => {
  const d: Array<Array<number>> = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}

const closest = (option: string, known: ReadonlyArray<string>): string => known.reduce((best, k) => (distance(option, k) < distance(option, best) ? k : best))

/** Long enough to show, short enough for one line. */
const shown = (word: string): string => (word.length > 40 ? `${word.slice(0, 40)}…` : word)

/**
 * The sentence refusing the first unknown option in `args` (the user's words,
 * global options already hoisted to the front), or `undefined` when every
 * option is known. A command is refused only as a typo of a known one
 * (`turnlog sesions`); any other word is left to the parser.
 */
export const check = (args: ReadonlyArray<string>): string | undefined => {
  let i = 0
  while (i < args.length && GLOBAL[args[i]!] === true) i += 2
  const first = args[i]
  if (first === undefined || first === "--") return undefined
  let command: string | undefined
  let known: Readonly<Record<string, boolean>>
  if (first.startsWith("-")) {
    known = { ...GLOBAL, ...BUILT_IN }
  } else {
    if (COMMAND_OPTIONS[first] === undefined) {
      // A typo of a command is named with it; any other word is left to the parser.
      const near = closest(first, [...Object.keys(COMMAND_OPTIONS), "help"])
      return distance(first, near) <= Math.max(1, Math.floor(first.length / 3))
        ? `unknown command ${shown(first)} (did you mean turnlog ${near}?)`
        : undefined
    }
    command = first
    known = { ...COMMAND_OPTIONS[first], ...GLOBAL, ...BUILT_IN }
    i++
  }
  for (; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") return undefined
    if (!arg.startsWith("-") || arg === "-") continue
    const name = arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg
    const takesValue = known[name]
    if (takesValue === undefined) {
      const names = Object.keys({ ...(command === undefined ? GLOBAL : COMMAND_OPTIONS[command]), ...GLOBAL })
      const where = command === undefined ? "turnlog" : `turnlog ${command}`
      const hint = command === "run" ? "; a prompt that starts with a dash goes after --: turnlog run -- <prompt>" : ""
      return `unknown option ${shown(name)} for ${where} (did you mean ${closest(name, names)}?)${hint}`
    }
    if (takesValue && !arg.includes("=")) {
      // `run --model` at the end, or `--model --continue`: the parser would take the
      // next word, or nothing, and the rest would become the prompt.
      const next = args[i + 1]
      if (next === undefined || next === "--" || (next.startsWith("-") && next !== "-" && optionName(next) in known)) {
        return `option ${name} needs a value${command === undefined ? "" : ` (turnlog ${command} ${name} <value>)`}`
      }
      i++
    }
  }
  return undefined
}

const optionName = (arg: string): string => (arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg)
