/**
 * Opens what `confine` checked without a gap between the check and the use.
 *
 * `confine` resolves a path and checks it is inside the session's directory,
 * but a path is looked up again by every later system call: a directory on it
 * swapped for a symbolic link to outside in between would send the read or
 * the write out of the directory. So the file tools never use the path again.
 * They open the directory holding the file and check that the opened
 * descriptor is that directory where `confine` found it (its path in
 * `/proc/self/fd`); when it is not, or to make a missing directory, they walk
 * down from the session's directory one name at a time, from descriptor to
 * descriptor, refusing to follow a link at any step. Every later call names
 * its file as `<directory descriptor>/<name>` (`/proc/self/fd/N/name`, which the kernel
 * resolves through the open directory, as `openat` would), so what it touches
 * is in the directory that was checked, whatever the path now points to.
 *
 * This needs `/proc/self/fd` (Linux). Elsewhere the paths are used as
 * `confine` resolved them, and a swap in between is not caught.
 */
import { constants as C, existsSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { PathOutsideCwd } from "../ToolError.js"

const FD_DIRECTORY = "/proc/self/fd"

let descriptorPaths: boolean | undefined
/** Whether files can be named through an open directory's descriptor here. */
export const racefree = (): boolean => (descriptorPaths ??= process.platform === "linux" && existsSync(FD_DIRECTORY))

const errorCode = (error: unknown): string | undefined => typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined

/** An open directory inside the root; `at(name)` names an entry of it for any path-taking call. */
export interface Directory {
  /** The directory's path relative to the root ("." for the root), for messages. */
  readonly relative: string
  readonly at: (name: string) => string
  /** A failure of a call given `at(…)`, its message naming the entry by its relative path. */
  readonly explain: (error: unknown) => unknown
  readonly close: () => Promise<void>
}

/** `error` with the descriptor path of directory `fd` in its message replaced by the directory's relative path. */
const named = (error: unknown, fd: number, relative: string): unknown => {
  if (!(error instanceof Error)) return error
  // `/proc/self/fd/12/name` and `/proc/self/fd/12`, not `/proc/self/fd/123`.
  const at = new RegExp(`${FD_DIRECTORY}/${fd}(?:/|(?![0-9]))`, "g")
  const message = error.message.replace(at, (found) => found.endsWith("/") && relative === "." ? "" : found.endsWith("/") ? `${relative}/` : relative)
  return message === error.message ? error : Object.assign(new Error(message), { code: errorCode(error) })
}

const swapped = (root: string, relative: string, what: string): PathOutsideCwd =>
  new PathOutsideCwd({ path: relative, cwd: root, detail: `${what} was replaced by a symbolic link while the tool ran` })

/** The names on a path relative to the root; one that climbs out of it (`..`, or an absolute path) is refused. */
const components = (root: string, relative: string): ReadonlyArray<string> => {
  const names = relative.split(path.sep).filter((part) => part !== "" && part !== ".")
  if (path.isAbsolute(relative) || names.includes("..")) throw new PathOutsideCwd({ path: relative, cwd: root })
  return names
}

/**
 * Opens `relativeDirectory` (relative to `root`, a real path with no link on
 * it) one name at a time, never following a link; with `create`, a missing
 * directory on the way is made inside the one above it. A link found on the
 * way fails with `PathOutsideCwd`, another failure with the system's error.
 */
export const openDirectory = async (root: string, relativeDirectory: string, create: boolean): Promise<Directory> => {
  const names = components(root, relativeDirectory)
  if (!racefree()) {
    const absolute = path.join(root, ...names)
    if (create) await fs.mkdir(absolute, { recursive: true })
    return {
      relative: names.join(path.sep) || ".",
      at: (name) => path.join(absolute, name),
      explain: (error) => error,
      close: async () => undefined,
    }
  }
  const relative = names.join(path.sep) || "."
  const direct = await openDirect(path.join(root, ...names))
  if (direct !== undefined) return opened(relative, direct)
  let handle = await fs.open(root, C.O_RDONLY | C.O_DIRECTORY).catch((error: unknown) => {
    throw errorCode(error) === "ENOENT" ? new Error(`the working directory ${root} no longer exists`) : error
  })
  try {
    // The root itself may have been swapped since it was resolved.
    if ((await fs.readlink(`${FD_DIRECTORY}/${handle.fd}`)) !== root) throw swapped(root, ".", "the session directory")
    const walked: Array<string> = []
    for (const name of names) {
      walked.push(name)
      const entry = `${FD_DIRECTORY}/${handle.fd}/${name}`
      const next = await openStep(entry, create).catch(async (error: unknown) => {
        const code = errorCode(error)
        if (code === "ENOTDIR" || code === "ELOOP") {
          // With O_NOFOLLOW a link fails as "not a directory": say which it is.
          const stat = await fs.lstat(entry).catch(() => undefined)
          if (stat?.isSymbolicLink()) throw swapped(root, walked.join(path.sep), walked.join(path.sep))
          throw new Error(`${walked.join(path.sep)} is not a directory`)
        }
        throw named(error, handle.fd, walked.slice(0, -1).join(path.sep) || ".")
      })
      await handle.close()
      handle = next
    }
  } catch (error) {
    await handle.close()
    throw error
  }
  return opened(relative, handle)
}

const opened = (relative: string, handle: fs.FileHandle): Directory => ({
  relative,
  at: (name) => `${FD_DIRECTORY}/${handle.fd}/${name}`,
  explain: (error) => named(error, handle.fd, relative),
  close: () => handle.close(),
})

/**
 * The quick way, when nothing on the path changed: the directory opened by
 * its path, kept when the opened descriptor is that very directory (whatever
 * the path pointed to while it was opened, the descriptor is checked, and it
 * is what every later call goes through). Otherwise undefined: the walk then
 * finds what is missing or which name became a link.
 */
const openDirect = async (absolute: string): Promise<fs.FileHandle | undefined> => {
  const handle = await fs.open(absolute, C.O_RDONLY | C.O_DIRECTORY).catch(() => undefined)
  if (handle === undefined) return undefined
  const at = await fs.readlink(`${FD_DIRECTORY}/${handle.fd}`).catch(() => undefined)
  if (at === absolute) return handle
  await handle.close()
  return undefined
}

const DIRECTORY_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW

const openStep = async (entry: string, create: boolean): Promise<fs.FileHandle> => {
  try {
    return await fs.open(entry, DIRECTORY_FLAGS)
  } catch (error) {
    if (!create || errorCode(error) !== "ENOENT") throw error
    await fs.mkdir(entry).catch((e: unknown) => {
      if (errorCode(e) !== "EEXIST") throw e
    })
    return fs.open(entry, DIRECTORY_FLAGS)
  }
}

/** Runs `use` with the directory holding `relative` (a path relative to `root`) and the entry's name in it. */
export const withParent = async <A>(
  root: string,
  relative: string,
  create: boolean,
  use: (directory: Directory, name: string) => Promise<A>,
): Promise<A> => {
  const names = components(root, relative)
  // The root itself: its own entry in the directory above would leave the root.
  if (names.length === 0) {
    const directory = await openDirectory(root, ".", false)
    try {
      return await use(directory, ".").catch((error: unknown) => Promise.reject(directory.explain(error)))
    } finally {
      await directory.close()
    }
  }
  const directory = await openDirectory(root, names.slice(0, -1).join(path.sep), create).catch((error: unknown) => {
    // Name the path the tool was given, with the directory on it that changed.
    throw error instanceof PathOutsideCwd
      ? new PathOutsideCwd({ path: relative, cwd: error.cwd, ...(error.detail === undefined ? {} : { detail: error.detail }) })
      : error
  })
  try {
    return await use(directory, names[names.length - 1]!).catch((error: unknown) => Promise.reject(directory.explain(error)))
  } finally {
    await directory.close()
  }
}

/**
 * Opens a file for reading inside the root without following a link (a
 * non-blocking open: a named pipe or a device must not hold the call).
 */
export const openForReading = (root: string, relative: string): Promise<fs.FileHandle> =>
  withParent(root, relative, false, async (directory, name) => {
    try {
      return await fs.open(directory.at(name), C.O_RDONLY | C.O_NONBLOCK | (name === "." ? 0 : C.O_NOFOLLOW))
    } catch (error) {
      if (errorCode(error) === "ELOOP") throw swapped(root, relative, relative)
      throw error
    }
  })
