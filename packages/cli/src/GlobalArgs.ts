/**
 * The global options (`--home`, `--config`, `--store`) are accepted anywhere
 * on the command line, before or after the command name. The parser only
 * knows them on the root command, so they are moved to the front before it
 * runs; `--` ends the options and leaves the rest alone. Asked for help or the
 * version (`turnlog --home d --help`), the parser answers only when that comes
 * first, and global options change neither: they are left out.
 */
export const GLOBAL_OPTIONS: ReadonlyArray<string> = ["--home", "--config", "--store"]

/** A global option given last (or before `--`) without its value. */
export class MissingValue extends Error {
  constructor(readonly option: string) {
    super(`${option} needs a value (${option} ${option === "--store" ? "jsonl|sqlite|postgres" : option === "--home" ? "<dir>" : "<file>"})`)
  }
}

/** `argv` without node and the script: the user's words. Throws `MissingValue`. */
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
      if (arg.includes("=")) {
        globals.push(name, arg.slice(arg.indexOf("=") + 1))
      } else {
        const value = args[i + 1]
        if (value === undefined || value === "--") throw new MissingValue(arg)
        globals.push(arg, value)
        i++
      }
    } else {
      rest.push(arg)
    }
  }
  return BUILT_INS.includes(rest[0] ?? "") ? rest : [...globals, ...rest]
}

/** What the parser answers by itself, before any command: help, the version, shell completions. */
const BUILT_INS: ReadonlyArray<string> = ["--help", "-h", "--version", "--wizard", "--completions"]
