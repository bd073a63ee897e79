/**
 * Replaces a file's content the way `write_file` must: the new content goes to
 * a temporary file in the target's directory, which is then renamed over the
 * target. Writing in place would write through every other name of the file —
 * a hard link from the session's directory to a file outside it would let a
 * write change that outside file. A rename replaces only the name written to;
 * the other names keep the old content. It also means a reader never sees a
 * half-written file, and a failed write leaves the old content whole.
 *
 * The replacement keeps the target's permission bits (owner and group stay the
 * writer's). The temporary is removed on any failure. Both are made through
 * the directory as it was opened and checked (`inside`), not through a path
 * that may have changed since.
 */
import { randomBytes } from "node:crypto"
import { constants as fsConstants, type Stats } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { withParent } from "./inside.js"

const errorCode = (error: unknown): string | undefined => typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined

export const describeNonFile = (relative: string, stat: Stats): string =>
  `${relative} is not a regular file (it is ${
    stat.isDirectory() ? "a directory" : stat.isSymbolicLink() ? "a symbolic link" : stat.isFIFO() ? "a named pipe" : stat.isSocket() ? "a socket" : "a device"
  })`

/**
 * Writes `content` to `relative` inside `root` (a real path): the temporary is
 * made and renamed inside the directory opened without following a link (see
 * `inside`), so neither can land outside the root, whatever is swapped in on
 * the way meanwhile. With `createDirectories`, missing directories on the way
 * are made, each inside the one above it.
 */
export const writeInside = (
  root: string,
  relative: string,
  content: string,
  options: { readonly createDirectories?: boolean } = {},
): Promise<void> =>
  withParent(root, relative, options.createDirectories ?? false, async (directory, name) => {
    let existing: Stats | undefined
    try {
      existing = await fs.lstat(directory.at(name))
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error
    }
    // A named pipe, device, directory or link is refused, not replaced by a file.
    if (existing !== undefined && !existing.isFile()) throw new Error(describeNonFile(relative, existing))

    const temporary = directory.at(`.${name}.${randomBytes(6).toString("hex")}.tmp`)
    // O_EXCL: never opens (or follows a link to) a file that is already there.
    const handle = await fs.open(temporary, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW, 0o666)
    try {
      try {
        // An explicit mode is not narrowed by the umask: the target's bits exactly.
        if (existing !== undefined) await handle.chmod(existing.mode & 0o7777)
        await handle.writeFile(content, "utf8")
        await handle.sync()
      } finally {
        await handle.close()
      }
      // Within the one open directory: a rename replaces the name itself, never a file a link points to.
      await fs.rename(temporary, directory.at(name))
    } catch (error) {
      await fs.rm(temporary, { force: true }).catch(() => undefined)
      throw error
    }
  })

/**
 * `absolute` must already be confined (`confine`), `relative` being its path
 * relative to the session's directory; the write happens as `writeInside`.
 */
export const replaceFile = (absolute: string, relative: string, content: string): Promise<void> => {
  const root = relative === "." ? absolute : absolute.slice(0, absolute.length - relative.length - 1)
  if (path.join(root, relative) !== absolute) return Promise.reject(new Error(`${relative} is not the end of ${absolute}`))
  return writeInside(root, relative, content)
}
