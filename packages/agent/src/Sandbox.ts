/**
 * The sandbox `run_command` runs commands in, and stdio MCP servers run in,
 * where the platform offers one: bubblewrap (`bwrap`) on Linux. Inside it a
 * command (or a server)
 *
 * - sees only its own processes (a new PID namespace with its own `/proc`):
 *   not turnlog's, nor any other process's environment or memory, so no
 *   provider key can be read from `/proc/<pid>/environ`;
 * - writes only in the session's directory and in a `/tmp` of its own (the
 *   rest of the file system is mounted read-only), so it cannot rewrite the
 *   session logs or anything else of the user's;
 * - runs with no capabilities (when turnlog runs as root, too), and is killed
 *   with everything it started when it ends or turnlog goes away — a job left
 *   in the background ends with the command.
 *
 * The network is not restricted. `detect` finds `bwrap` on the PATH and checks
 * once that it can start a sandbox here (user namespaces may be disabled):
 * where it cannot, `auto` runs commands as they are and `require` refuses to.
 */
import { execFile } from "node:child_process"
import { accessSync, constants as C } from "node:fs"
import * as path from "node:path"

/** `auto`: sandbox where available; `off`: never; `require`: refuse to run a command without one. */
export type Mode = "auto" | "off" | "require"

export interface Wrapped {
  readonly file: string
  readonly args: ReadonlyArray<string>
}

export interface Sandbox {
  readonly name: string
  /** The program and arguments that run `/bin/sh -c <command>` in the sandbox, in `cwd`. */
  readonly wrap: (command: string, cwd: string) => Wrapped
  /**
   * The program and arguments that run `program` with `args` in the sandbox,
   * in `cwd`; `writable` names more directories (existing ones) it may write in.
   */
  readonly wrapProgram: (
    program: string,
    args: ReadonlyArray<string>,
    options: { readonly cwd: string; readonly writable?: ReadonlyArray<string>; readonly readable?: ReadonlyArray<string> },
  ) => Wrapped
}

const onPath = (name: string, searchPath: string | undefined): string | undefined => {
  for (const dir of (searchPath ?? "").split(path.delimiter)) {
    if (dir === "" || !path.isAbsolute(dir)) continue
    const candidate = path.join(dir, name)
    try {
      accessSync(candidate, C.X_OK)
      return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

const isRoot = (): boolean => typeof process.getuid === "function" && process.getuid() === 0

const bubblewrapArgs = (cwd: string, writable: ReadonlyArray<string> = [], readable: ReadonlyArray<string> = []): Array<string> => [
  "--die-with-parent",
  "--unshare-pid",
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--tmpfs",
  "/tmp",
  // Under the private /tmp, what the program itself needs from the host's (read-only).
  ...readable.flatMap((dir) => ["--ro-bind", dir, dir]),
  ...writable.flatMap((dir) => ["--bind", dir, dir]),
  "--bind",
  cwd,
  cwd,
  "--chdir",
  cwd,
  // Unprivileged, bwrap keeps no capabilities; as root it would keep them all
  // (enough to unmount the fresh /proc and find the host's beneath it).
  ...(isRoot() ? ["--cap-drop", "ALL"] : []),
]

export const bubblewrap = (file: string): Sandbox => ({
  name: "bubblewrap",
  wrap: (command, cwd) => ({ file, args: [...bubblewrapArgs(cwd), "--", "/bin/sh", "-c", command] }),
  wrapProgram: (program, args, options) => ({
    file,
    args: [...bubblewrapArgs(options.cwd, options.writable, options.readable), "--", program, ...args],
  }),
})

const PROBE_TIMEOUT_MS = 10_000

const works = (sandbox: Sandbox): Promise<boolean> =>
  new Promise((resolve) => {
    const { file, args } = sandbox.wrap("exit 0", "/")
    execFile(file, args, { timeout: PROBE_TIMEOUT_MS }, (error) => resolve(error === null))
  })

const probed = new Map<string, Promise<boolean>>()

/** A sandbox that works on this machine (`bwrap` found on `searchPath`), checked once per program. */
export const detect = async (searchPath: string | undefined = process.env.PATH): Promise<Sandbox | undefined> => {
  if (process.platform !== "linux") return undefined
  const file = onPath("bwrap", searchPath)
  if (file === undefined) return undefined
  const sandbox = bubblewrap(file)
  let working = probed.get(file)
  if (working === undefined) probed.set(file, working = works(sandbox))
  return (await working) ? sandbox : undefined
}
