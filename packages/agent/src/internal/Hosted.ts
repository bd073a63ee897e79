/**
 * The built-in tools' reading, writing and running done by the session's
 * client (`ToolHost`) instead of the disk and a child process. The path is
 * already confined when it gets here; what comes back is shaped as the disk
 * path shapes it — the same read cap and its note, the same output cap and
 * its note, the same timeout — so the model cannot tell the two apart. A
 * client's failure is the tool's failure, in one sentence naming the path.
 */
import { Effect } from "effect"
import type { CommandRequest, ToolHost } from "../ToolHost.js"
import { ToolFailed, ToolTimeout } from "../ToolError.js"
import { capOutput, type CommandResult, missingDirectory } from "./command.js"
import type { Confined } from "./confine.js"
import { withParent } from "./inside.js"

const said = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** The file's text as the client has it (an editor's unsaved buffer), cut at `cap` bytes as a read from disk is. */
export const read = (
  tool: string,
  host: ToolHost,
  readTextFile: NonNullable<ToolHost["readTextFile"]>,
  target: Confined,
): Effect.Effect<string, ToolFailed> =>
  readTextFile(target.absolute).pipe(
    Effect.mapError((e) => new ToolFailed({ tool, detail: `${host.name} could not read ${target.relative}: ${e.reason}` })),
  )

/** `read`, cut at `cap` bytes with the note `read_file` adds to a long file on disk. */
export const capped = (text: string, cap: number): string => {
  const bytes = Buffer.from(text, "utf8")
  return bytes.length > cap ? `${bytes.subarray(0, cap).toString("utf8")}\n[file truncated: ${bytes.length - cap} more bytes]` : text
}

/**
 * Writes through the client. With `createDirectories`, the missing directories
 * on the way are made first, inside the session's directory as a write to disk
 * makes them: a client need not make them.
 */
export const write = (
  tool: string,
  host: ToolHost,
  writeTextFile: NonNullable<ToolHost["writeTextFile"]>,
  target: Confined,
  content: string,
  options: { readonly createDirectories?: boolean } = {},
): Effect.Effect<void, ToolFailed> =>
  Effect.zipRight(
    options.createDirectories === true && !target.exists
      ? Effect.tryPromise({
        try: () => withParent(target.root, target.relative, true, async () => undefined),
        catch: (error) => new ToolFailed({ tool, detail: said(error) }),
      })
      : Effect.void,
    writeTextFile(target.absolute, content).pipe(
      Effect.mapError((e) => new ToolFailed({ tool, detail: `${host.name} could not write ${target.relative}: ${e.reason}` })),
    ),
  )

/** Runs a command in the client's terminal; its output is cut at `outputCapBytes` as a child process's is. */
export const run = (
  host: ToolHost,
  runCommand: NonNullable<ToolHost["runCommand"]>,
  request: CommandRequest & { readonly command: string; readonly outputCapBytes: number },
): Effect.Effect<CommandResult, ToolFailed | ToolTimeout> => {
  const gone = missingDirectory(request.cwd)
  if (gone !== undefined) return Effect.fail(new ToolFailed({ tool: "run_command", detail: gone }))
  return runCommand({ file: request.file, args: request.args, cwd: request.cwd, timeoutMs: request.timeoutMs }).pipe(
    Effect.mapError((e) => new ToolFailed({ tool: "run_command", detail: `${host.name} could not run ${request.command}: ${e.reason}` })),
    Effect.flatMap((outcome) => {
      // The client keeps the end of an output longer than its limit: said, since the model sees a cut.
      const output = capOutput(outcome.truncated ? `[${host.name} kept only the end of the output]\n${outcome.output}` : outcome.output, request.outputCapBytes)
      return outcome.timedOut
        ? Effect.fail(new ToolTimeout({ tool: "run_command", timeoutMs: request.timeoutMs, output }))
        : Effect.succeed({ exitCode: outcome.exitCode, signal: outcome.signal, output })
    }),
  )
}
