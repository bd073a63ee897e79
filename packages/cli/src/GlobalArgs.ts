/**
 * The global options (`--home`, `--config`, `--store`) are accepted anywhere
 * on the command line, before or after the command name. The parser only
 * knows them on the root command, so they are moved to the front before it
 * runs; `--` ends the options and leaves the rest alone. Asked for help or the
 * version (`turnlog --home d --help`), the parser answers only when that comes
 * first, and global options change neither: they are left out.
 */
export const GLOBAL_OPTIONS: ReadonlyArray<string> = ["--home", "--config", "--store"]

const form = (option: string) => `${option} ${option === "--store" ? "jsonl|sqlite|postgres" : option === "--home" ? "<dir>" : "<file>"}`

/** A global option the command line cannot use: one sentence saying what to fix. */
export class BadGlobalOption extends Error {}

/** A global option given last (or before `--`) without its value, or with an empty one (`--home=`). */
export class MissingValue extends BadGlobalOption {
  constructor(readonly option: string) {
    super(`${option} needs a value (${form(option)})`)
  }
}

/** A global option given twice: which one should win is the user's call. */
export class RepeatedOption extends BadGlobalOption {
  constructor(readonly option: string) {
    super(`${option} is given more than once: give it once (${form(option)})`)
  }
}

/** `argv` without node and the script: the user's words. Throws a `BadGlobalOption`. */
export const hoist = (args: ReadonlyArray<string>): Array<string> => {
  const globals: Array<string> = []
  const rest: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") {
      rest.push(...args.slice(i))
      break
    }
    const name = arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg
    if (GLOBAL_OPTIONS.includes(name)) {
      const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[++i]
      if (value === undefined || value === "--" || value.trim() === "") throw new MissingValue(name)
      if (globals.includes(name)) throw new RepeatedOption(name)
      globals.push(name, value)
    } else {
      rest.push(arg)
    }
  }
  return BUILT_INS.includes(rest[0] ?? "") ? rest : [...globals, ...rest]
}

/** What the parser answers by itself, before any command: help, the version, shell completions. */
const BUILT_INS: ReadonlyArray<string> = ["--help", "-h", "--version", "--wizard", "--completions"]
