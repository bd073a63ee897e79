/**
 * The built-in tools: read and list files, edit and write a file, run a shell command —
 * enough for a coding agent to work in the session's directory and no more.
 * Every path is confined to the session's cwd; writes and commands ask for
 * permission (the loop asks `Permissions` with what `prepare` says). Where the
 * session's client offers them (`ToolHost`: an editor's buffers and terminal),
 * the reading, writing and running go through it, confined and asked the same.
 */
import * as fs from "node:fs/promises"
import { Effect, Layer, Schema } from "effect"
import { editFile } from "./EditFile.js"
import { runCommand } from "./internal/command.js"
import * as Hosted from "./internal/Hosted.js"
import { confine } from "./internal/confine.js"
import { openDirectory, openForReading } from "./internal/inside.js"
import * as Sandbox from "./Sandbox.js"
import { describeNonFile as notAFile, writeInside } from "./internal/replace.js"
import { PathOutsideCwd, ToolFailed } from "./ToolError.js"
import * as PlanExit from "./PlanExit.js"
import * as Todo from "./Todo.js"
import * as Tools from "./Tools.js"

export interface Options {
  /** Limit on a file tool's run (default 30 s). */
  readonly fileTimeoutMs?: number
  /** A command's timeout when the model gives none (default 120 s). */
  readonly commandTimeoutMs?: number
  /** The longest timeout a model may ask a command for (default 600 s). */
  readonly maxCommandTimeoutMs?: number
  /** How much command output the model sees (default 32 KiB). */
  readonly outputCapBytes?: number
  /** How much of a file `read_file` returns (default 256 KiB). */
  readonly readCapBytes?: number
  /** How many entries `list_files` returns (default 1000). */
  readonly listCap?: number
  /** The largest file `edit_file` edits (default 8 MiB). */
  readonly editCapBytes?: number
  /**
   * The environment `run_command` runs commands in (default: this process's).
   * The command line passes its own without the provider credentials.
   */
  readonly commandEnv?: Readonly<Record<string, string | undefined>>
  /**
   * Whether `run_command` runs commands in a sandbox (see `Sandbox`):
   * `auto` (the default) where one is available, `off`, or `require` (a
   * command fails where none is).
   */
  readonly sandbox?: SandboxMode
}

const failed = (tool: string) => (error: unknown): PathOutsideCwd | ToolFailed =>
  error instanceof PathOutsideCwd ? error : new ToolFailed({ tool, detail: error instanceof Error ? error.message : String(error) })

const PathArg = Schema.String.annotations({ description: "A path relative to the working directory" })

export const readFile = (options: Options = {}): Tools.Tool => {
  const cap = options.readCapBytes ?? 256 * 1024
  return Tools.define({
    name: "read_file",
    description: "Read a UTF-8 text file in the working directory.",
    parameters: Schema.Struct({ path: PathArg }),
    timeoutMs: options.fileTimeoutMs ?? 30_000,
    display: { kind: "read", title: (args) => `Read ${args.path}`, paths: (args) => [args.path] },
    prepare: (args, context) =>
      Effect.map(confine("read_file", context.cwd, args.path), (target) => ({
        run: context.host?.readTextFile !== undefined
          ? Effect.map(Hosted.read("read_file", context.host, context.host.readTextFile, target), (text) => Hosted.capped(text, cap))
          : Effect.tryPromise({
            try: async () => {
              // Non-blocking: opening a FIFO or a device must not wait (a timed-out open
              // cannot be stopped and would hold one of the few file-system threads).
              // Opened through the checked directory: a link swapped in since is not followed.
              const handle = await openForReading(target.root, target.relative)
              try {
                const stat = await handle.stat()
                if (!stat.isFile()) throw new Error(notAFile(target.relative, stat))
                const size = stat.size
                const buffer = Buffer.alloc(Math.min(size, cap))
                const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
                const text = buffer.subarray(0, bytesRead).toString("utf8")
                return size > cap ? `${text}\n[file truncated: ${size - cap} more bytes]` : text
              } finally {
                await handle.close()
              }
            },
            catch: failed("read_file"),
          }),
      })),
  })
}

export const listFiles = (options: Options = {}): Tools.Tool => {
  const cap = options.listCap ?? 1000
  return Tools.define({
    name: "list_files",
    description: "List the entries of a directory in the working directory (directories end with /).",
    parameters: Schema.Struct({ path: Schema.optionalWith(PathArg, { exact: true }) }),
    timeoutMs: options.fileTimeoutMs ?? 30_000,
    display: { kind: "search", title: (args) => `List ${args.path ?? "."}`, paths: (args) => [args.path ?? "."] },
    prepare: (args, context) =>
      Effect.map(confine("list_files", context.cwd, args.path ?? "."), (target) => ({
        run: Effect.tryPromise({
          try: async () => {
            const directory = await openDirectory(target.root, target.relative, false)
            const entries = await fs.readdir(directory.at("."), { withFileTypes: true })
              .catch((error: unknown) => Promise.reject(directory.explain(error)))
              .finally(directory.close)
            const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort()
            const shown = names.slice(0, cap).join("\n")
            return names.length > cap ? `${shown}\n[${names.length - cap} more entries]` : shown
          },
          catch: failed("list_files"),
        }),
      })),
  })
}

export const writeFile = (options: Options = {}): Tools.Tool =>
  Tools.define({
    name: "write_file",
    description: "Write a UTF-8 text file in the working directory, creating missing directories; replaces the file.",
    parameters: Schema.Struct({ path: PathArg, content: Schema.String }),
    timeoutMs: options.fileTimeoutMs ?? 30_000,
    display: {
      kind: "edit",
      title: (args) => `Write ${args.path}`,
      paths: (args) => [args.path],
      changes: (args) => [{ path: args.path, newText: args.content }],
    },
    prepare: (args, context) =>
      Effect.map(confine("write_file", context.cwd, args.path), (target) => ({
        permission: { kind: "write" as const },
        // Checked again when it runs: the tree may have changed while permission
        // was asked (a directory on the path swapped for a link out of it).
        run: Effect.flatMap(confine("write_file", context.cwd, args.path), (now): Effect.Effect<string, PathOutsideCwd | ToolFailed> =>
          now.absolute !== target.absolute
            ? Effect.fail(
              new PathOutsideCwd({
                path: args.path,
                cwd: context.cwd,
                detail: `it resolved to ${target.absolute} when permission was asked and to ${now.absolute} now`,
              }),
            )
            : context.host?.writeTextFile !== undefined
            ? Effect.as(
              Hosted.write("write_file", context.host, context.host.writeTextFile, now, args.content, { createDirectories: true }),
              `wrote ${Buffer.byteLength(args.content, "utf8")} bytes to ${now.relative}`,
            )
            : Effect.tryPromise({
              try: async () => {
                // A temporary renamed over the target: never a write through another
                // name of the file (a hard link to a file outside the directory);
                // missing directories made inside the ones checked above them.
                await writeInside(now.root, now.relative, args.content, { createDirectories: true })
                return `wrote ${Buffer.byteLength(args.content, "utf8")} bytes to ${now.relative}`
              },
              catch: failed("write_file"),
            })),
      })),
  })

export type SandboxMode = Sandbox.Mode

/** The sandbox `run_command` uses on this machine (`bwrap` looked for on `searchPath`), if one works. */
export const detectSandbox = (searchPath?: string): Promise<{ readonly name: string } | undefined> => Sandbox.detect(searchPath)

/** `bwrap` is looked for on the PATH commands get. */
const sandboxFor = (mode: Sandbox.Mode, searchPath: string | undefined): Effect.Effect<Sandbox.Sandbox | undefined, ToolFailed> =>
  mode === "off" ? Effect.succeed(undefined) : Effect.promise(() => Sandbox.detect(searchPath)).pipe(
    Effect.filterOrFail(
      (sandbox) => sandbox !== undefined || mode === "auto",
      () =>
        new ToolFailed({
          tool: "run_command",
          detail: "commands must run in a sandbox and none works on this machine (install bubblewrap: bwrap on the PATH)",
        }),
    ),
  )

export const runCommandTool = (options: Options = {}): Tools.Tool => {
  const defaultTimeout = options.commandTimeoutMs ?? 120_000
  const maxTimeout = options.maxCommandTimeoutMs ?? 600_000
  return Tools.define({
    name: "run_command",
    description: "Run a shell command (/bin/sh -c) in the working directory; returns its output and exit status.",
    parameters: Schema.Struct({
      command: Schema.String.annotations({ description: "The shell command line" }),
      timeoutMs: Schema.optionalWith(
        Schema.Number.pipe(Schema.int(), Schema.positive()).annotations({
          description: "Stop the command after this many milliseconds",
        }),
        { exact: true },
      ),
    }),
    display: { kind: "execute", title: (args) => `Run ${args.command}` },
    prepare: (args, context) => {
      const timeoutMs = Math.min(args.timeoutMs ?? defaultTimeout, maxTimeout)
      const outputCapBytes = options.outputCapBytes ?? 32 * 1024
      return Effect.succeed({
        permission: { kind: "command" as const },
        run: sandboxFor(options.sandbox ?? "auto", (options.commandEnv ?? process.env).PATH).pipe(
          Effect.flatMap((sandbox) =>
            context.host?.runCommand !== undefined
              // The client's terminal runs what a child process would: the sandbox around the shell.
              ? Hosted.run(context.host, context.host.runCommand, {
                command: args.command,
                ...(sandbox?.wrap(args.command, context.cwd) ?? { file: "/bin/sh", args: ["-c", args.command] }),
                cwd: context.cwd,
                timeoutMs,
                outputCapBytes,
              })
              : runCommand({
                command: args.command,
                cwd: context.cwd,
                timeoutMs,
                outputCapBytes,
                ...(options.commandEnv === undefined ? {} : { env: options.commandEnv }),
                ...(sandbox === undefined ? {} : { sandbox }),
              })
          ),
          Effect.flatMap((result) =>
            result.exitCode === 0
              ? Effect.succeed(result.output)
              : Effect.fail(
                new ToolFailed({
                  tool: "run_command",
                  detail: (result.exitCode !== null ? `exit status ${result.exitCode}` : `killed by ${result.signal}`) +
                    (result.output ? `\n${result.output}` : ""),
                }),
              )
          ),
        ),
      })
    },
  })
}

export { editFile } from "./EditFile.js"

/** The built-ins, in the order the model is told about them. */
export const tools = (options: Options = {}): ReadonlyArray<Tools.Tool> => [
  readFile(options),
  listFiles(options),
  editFile(options),
  writeFile(options),
  runCommandTool(options),
  Todo.tool(),
  PlanExit.tool(),
]

export const layer = (options: Options = {}): Layer.Layer<Tools.Tools> => Tools.layer(tools(options))
