/**
 * Where turnlog's home and config file are: home `--home` | `TURNLOG_HOME` |
 * `~/.turnlog`; config `--config` | `TURNLOG_CONFIG` | `<home>/config.json`
 * when it exists. Plain Node, no effect: the early `initialize` answer of
 * `turnlog acp` names the config file before the command has loaded.
 */
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { resolve } from "node:path"

export type Environment = Readonly<Record<string, string | undefined>>

export const expandHome = (path: string): string => path === "~" ? homedir() : path.startsWith("~/") ? resolve(homedir(), path.slice(2)) : path

export const nonEmpty = (value: string | undefined): string | undefined => value === undefined || value.trim() === "" ? undefined : value

export interface Location {
  readonly home: string
  /** The config file to read: named (by `--config` or `TURNLOG_CONFIG`, whether or not it exists) or found in the home. */
  readonly configFile?: string
  /** Whether `configFile` was named rather than found. */
  readonly named: boolean
}

export const locate = (
  flags: { readonly home?: string | undefined; readonly config?: string | undefined },
  env: Environment,
  cwd: string,
): Location => {
  const home = resolve(cwd, expandHome(flags.home ?? nonEmpty(env.TURNLOG_HOME) ?? "~/.turnlog"))
  const explicit = flags.config ?? nonEmpty(env.TURNLOG_CONFIG)
  if (explicit !== undefined) return { home, configFile: resolve(cwd, expandHome(explicit)), named: true }
  const found = resolve(home, "config.json")
  return existsSync(found) ? { home, configFile: found, named: false } : { home, named: false }
}
