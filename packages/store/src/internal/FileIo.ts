/**
 * The file operations the JSONL layer uses, as one replaceable value. The
 * store calls the real `node:fs` functions; a test can wrap one of them to
 * make a write fail half-way and check what the store leaves on disk.
 */
import * as fs from "node:fs"

export interface FileIo {
  readonly openSync: typeof fs.openSync
  readonly closeSync: typeof fs.closeSync
  readonly readSync: typeof fs.readSync
  /** Writes at `position` when given, else where the file's offset is. */
  readonly writeSync: (fd: number, buffer: Uint8Array, offset: number, length: number, position?: number) => number
  /**
   * Writes `text` as UTF-8 where the file's offset is; the bytes written (a
   * short write leaves the rest unwritten). Cheaper than encoding into a
   * buffer first.
   */
  readonly writeStringSync: (fd: number, text: string) => number
  readonly fsyncSync: typeof fs.fsyncSync
  readonly fdatasyncSync: typeof fs.fdatasyncSync
  readonly ftruncateSync: typeof fs.ftruncateSync
  readonly fstatSync: (fd: number) => { readonly size: number; readonly nlink: number }
  readonly linkSync: typeof fs.linkSync
  readonly unlinkSync: typeof fs.unlinkSync
  readonly renameSync: typeof fs.renameSync
  readonly readFileSync: (path: string, encoding: "utf8") => string
  readonly mkdirSync: typeof fs.mkdirSync
  readonly readdirSync: (path: string) => Array<string>
}

export const nodeIo: FileIo = {
  openSync: fs.openSync,
  closeSync: fs.closeSync,
  readSync: fs.readSync,
  writeSync: (fd, buffer, offset, length, position) => fs.writeSync(fd, buffer, offset, length, position ?? null),
  writeStringSync: (fd, text) => fs.writeSync(fd, text),
  fsyncSync: fs.fsyncSync,
  fdatasyncSync: fs.fdatasyncSync,
  ftruncateSync: fs.ftruncateSync,
  fstatSync: (fd) => fs.fstatSync(fd),
  linkSync: fs.linkSync,
  unlinkSync: fs.unlinkSync,
  renameSync: fs.renameSync,
  readFileSync: (path, encoding) => fs.readFileSync(path, encoding),
  mkdirSync: fs.mkdirSync,
  readdirSync: (path) => fs.readdirSync(path),
}

export const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

/** Writes all of `buffer`, looping over short writes; from file offset `at` when given. */
export const writeAll = (io: FileIo, fd: number, buffer: Uint8Array, at?: number): void => {
  let offset = 0
  while (offset < buffer.length) {
    offset += io.writeSync(fd, buffer, offset, buffer.length - offset, at === undefined ? undefined : at + offset)
  }
}

/**
 * Makes a directory entry change (a new file, a rename, an unlink) durable.
 * Platforms that cannot open a directory for syncing have nothing to sync.
 */
export const syncDirectory = (io: FileIo, dir: string): void => {
  let fd: number
  try {
    fd = io.openSync(dir, "r")
  } catch (error) {
    if (["EISDIR", "EPERM", "EACCES"].includes(errorCode(error) ?? "")) return
    throw error
  }
  try {
    io.fsyncSync(fd)
  } catch (error) {
    if (!["EINVAL", "EPERM", "EISDIR", "EBADF"].includes(errorCode(error) ?? "")) throw error
  } finally {
    io.closeSync(fd)
  }
}
