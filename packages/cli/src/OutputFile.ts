/**
 * A command's output written to a file (`-o file`) instead of stdout: into a
 * temporary file beside it, renamed over it once everything is written, so
 * a failed command leaves the file as it was (or absent), never half written.
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { Effect, Exit } from "effect"
import { CommandFailed } from "./CliError.js"

const reason = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** Runs `body` with a writer into `path`; the file appears, whole, only when `body` succeeds. */
export const writeFile = <E, R>(
  path: string,
  body: (write: (text: string) => Effect.Effect<void, CommandFailed>) => Effect.Effect<void, E, R>,
): Effect.Effect<void, E | CommandFailed, R> => {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`)
  return Effect.acquireUseRelease(
    Effect.try({
      try: () => openSync(temp, "w", 0o644),
      catch: (e) => new CommandFailed({ message: `cannot write ${path}: ${reason(e)}` }),
    }),
    (fd) => {
      const write = (text: string) =>
        Effect.try({
          try: () => {
            const bytes = Buffer.from(text, "utf8")
            for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at)
          },
          catch: (e) => new CommandFailed({ message: `cannot write ${path}: ${reason(e)}` }),
        })
      return body(write).pipe(
        Effect.zipRight(Effect.try({
          try: () => {
            closeSync(fd)
            renameSync(temp, path)
          },
          catch: (e) => new CommandFailed({ message: `cannot write ${path}: ${reason(e)}` }),
        })),
      )
    },
    (fd, exit) =>
      Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => {
        try {
          closeSync(fd)
        } catch {
          // Already closed when the rename itself failed.
        }
        rmSync(temp, { force: true })
      }),
  )
}
