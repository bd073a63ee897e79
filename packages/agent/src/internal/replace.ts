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
 * writer's). The temporary is removed on any failure.
 */
import { randomBytes } from "node:crypto"
import { constants as fsConstants, type Stats } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"

const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined

export const describeNonFile = (relative: string, stat: Stats): string =>
  `${relative} is not a regular file (it is ${
    stat.isDirectory() ? "a directory" : stat.isSymbolicLink() ? "a symbolic link" : stat.isFIFO() ? "a named pipe" : stat.isSocket() ? "a socket" : "a device"
  })`

/** `absolute` must already be confined; `relative` names it in messages. */
export const replaceFile = async (absolute: string, relative: string, content: string): Promise<void> => {
  let existing: Stats | undefined
  try {
    existing = await fs.lstat(absolute)
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error
  }
  // A named pipe, device or directory is refused, not replaced by a file.
  if (existing !== undefined && !existing.isFile()) throw new Error(describeNonFile(relative, existing))

  const directory = path.dirname(absolute)
  const temporary = path.join(directory, `.${path.basename(absolute)}.${randomBytes(6).toString("hex")}.tmp`)
  // O_EXCL: never opens (or follows a link to) a file that is already there.
  const handle = await fs.open(temporary, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, 0o666)
  try {
    try {
      // An explicit mode is not narrowed by the umask: the target's bits exactly.
      if (existing !== undefined) await handle.chmod(existing.mode & 0o7777)
      await handle.writeFile(content, "utf8")
      await handle.sync()
    } finally {
      await handle.close()
    }
    await fs.rename(temporary, absolute)
  } catch (error) {
    await fs.rm(temporary, { force: true }).catch(() => undefined)
    throw error
  }
}
