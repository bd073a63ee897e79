/**
 * Keeps tool paths inside the session's working directory. The check is made
 * on the path as the operating system will follow it: symlinks are resolved
 * (for a path that does not exist yet, through its deepest existing ancestor),
 * so a link pointing out of the directory is caught, and a dangling link —
 * which a write would follow to wherever it points — is refused.
 *
 * The tools then open what was checked through `inside` (`root` and
 * `relative`), never through `absolute` again: a path is looked up anew by
 * every system call, and the tree may change between the check and the use.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect } from "effect"
import { PathOutsideCwd, ToolFailed } from "../ToolError.js"

export interface Confined {
  /** The session's directory as a real path (no link on it). */
  readonly root: string
  /** The resolved absolute path to operate on. */
  readonly absolute: string
  /** The path relative to the working directory, for messages ("." for the directory itself). */
  readonly relative: string
  readonly exists: boolean
}

const errorCode = (error: unknown): string | undefined => typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined

const isInside = (root: string, candidate: string): boolean => {
  const rel = path.relative(root, candidate)
  // `..` as a whole segment leaves the directory; `..notes.txt` is a name inside it.
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
}

export const confine = (tool: string, cwd: string, requested: string): Effect.Effect<Confined, PathOutsideCwd | ToolFailed> =>
  Effect.tryPromise({
    try: async (): Promise<Confined | PathOutsideCwd> => {
      let root: string
      try {
        root = await fs.realpath(cwd)
      } catch (error) {
        if (errorCode(error) === "ENOENT") throw new Error(`the working directory ${cwd} no longer exists`, { cause: error })
        throw error
      }
      const target = path.resolve(root, requested)
      let existing = target
      const missing: Array<string> = []
      for (;;) {
        try {
          await fs.lstat(existing)
          break
        } catch (error) {
          if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR") throw error
          const parent = path.dirname(existing)
          if (parent === existing) break
          missing.unshift(path.basename(existing))
          existing = parent
        }
      }
      let real: string
      try {
        real = await fs.realpath(existing)
      } catch (error) {
        if (errorCode(error) === "ENOENT") {
          return new PathOutsideCwd({ path: requested, cwd: root, detail: "a symbolic link on it points nowhere" })
        }
        throw error
      }
      const absolute = path.join(real, ...missing)
      if (!isInside(root, absolute)) {
        return new PathOutsideCwd({
          path: requested,
          cwd: root,
          ...(absolute !== target ? { detail: `it resolves to ${absolute}` } : {}),
        })
      }
      return { root, absolute, relative: path.relative(root, absolute) || ".", exists: missing.length === 0 }
    },
    catch: (error) => new ToolFailed({ tool, detail: error instanceof Error ? error.message : String(error) }),
  }).pipe(Effect.flatMap((r) => (r instanceof PathOutsideCwd ? Effect.fail(r) : Effect.succeed(r))))
