/**
 * How a stdio MCP server is started: in the same sandbox `run_command` uses
 * (see `Sandbox` in `@turnlog/agent`) where one works. The server sees no
 * process but its own (so no other process's environment, turnlog's included),
 * writes only in the session's directory and a `/tmp` of its own, and keeps the
 * network. A server started through `npx` or `npm` may also write npm's cache,
 * where the package it runs is downloaded to and unpacked from; no other
 * directory of the user's is writable.
 */
import { accessSync, constants as C, mkdirSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Sandbox } from "@turnlog/agent"
import type * as ServerConfig from "../ServerConfig.js"

export type Mode = Sandbox.Mode

/** The program and arguments that start the server, in the sandbox when there is one. */
export interface Launch {
  readonly command: string
  readonly args: ReadonlyArray<string>
}

/** Why a server is not started: the sandbox is required and none works here. */
export const REQUIRED = "it must run in a sandbox and none works on this machine (install bubblewrap: bwrap on the PATH)"

const valueOf = (server: ServerConfig.Stdio, name: string): string | undefined => server.env.find((e) => e.name === name)?.value ?? process.env[name]

/** npm's cache directory as npm finds it: `npm_config_cache`, else `.npm` in the home. */
const npmCache = (server: ServerConfig.Stdio): string | undefined => {
  const configured = valueOf(server, "npm_config_cache") ?? valueOf(server, "NPM_CONFIG_CACHE")
  if (configured !== undefined && configured !== "" && path.isAbsolute(configured)) return configured
  const home = valueOf(server, "HOME") ?? os.homedir()
  return home === "" ? undefined : path.join(home, ".npm")
}

/** The directories a server needs to write beside the session's, made when missing (a bind needs them). */
const writableFor = (server: ServerConfig.Stdio): ReadonlyArray<string> => {
  const program = path.basename(server.command)
  if (program !== "npx" && program !== "npm") return []
  const cache = npmCache(server)
  if (cache === undefined) return []
  try {
    mkdirSync(cache, { recursive: true })
    return [cache]
  } catch {
    // Not there and cannot be made: npm then says what it could not write.
    return []
  }
}

const executable = (file: string): boolean => {
  try {
    accessSync(file, C.X_OK)
    return true
  } catch {
    return false
  }
}

/** The program a spawn of `command` in `cwd` would run (a name looked up on the server's PATH), if there is one. */
const programOf = (server: ServerConfig.Stdio, cwd: string): string | undefined => {
  if (server.command.includes("/")) {
    const file = path.resolve(cwd, server.command)
    return executable(file) ? file : undefined
  }
  for (const dir of (valueOf(server, "PATH") ?? "").split(path.delimiter)) {
    if (dir === "") continue
    const file = path.resolve(cwd, dir, server.command)
    if (executable(file)) return file
  }
  return undefined
}

/**
 * The directories under `/tmp` the server's program and its path arguments
 * live in (a server installed or checked out there): the sandbox's `/tmp` is
 * its own, so these are shown to it again, read-only. Each is the directory
 * right under `/tmp`, so the program finds its own modules beside it.
 */
const underTmp = (program: string, args: ReadonlyArray<string>, cwd: string): ReadonlyArray<string> => {
  const dirs = new Set<string>()
  for (const candidate of [program, ...args]) {
    if (!candidate.includes("/")) continue
    const file = path.resolve(cwd, candidate)
    const relative = path.relative("/tmp", file)
    if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) continue
    const top = path.join("/tmp", relative.split(path.sep)[0]!)
    try {
      accessSync(top, C.R_OK)
      dirs.add(top)
    } catch {
      // not there: nothing to show
    }
  }
  return [...dirs]
}

/**
 * The program and arguments that start the server, in the sandbox when there
 * is one. A program that is not there fails as its spawn would without the
 * sandbox (`spawn <command> ENOENT`), not as the sandbox's own complaint.
 */
export const launch = (server: ServerConfig.Stdio, cwd: string, sandbox: Sandbox.Sandbox | undefined): Launch => {
  if (sandbox === undefined) return { command: server.command, args: server.args }
  const program = programOf(server, cwd)
  if (program === undefined) throw new Error(`spawn ${server.command} ENOENT`)
  const wrapped = sandbox.wrapProgram(program, server.args, { cwd, writable: writableFor(server), readable: underTmp(program, server.args, cwd) })
  return { command: wrapped.file, args: wrapped.args }
}

/** The sandbox for stdio servers under `mode`, or `REQUIRED` when one must be used and none works. */
export const resolve = async (mode: Mode, searchPath: string | undefined): Promise<Sandbox.Sandbox | undefined | typeof REQUIRED> => {
  if (mode === "off") return undefined
  const sandbox = await Sandbox.detect(searchPath)
  return sandbox === undefined && mode === "require" ? REQUIRED : sandbox
}
