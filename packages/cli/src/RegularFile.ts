/**
 * Reading a file the user named (the config, a scripted model) without being
 * held by it: what is not a regular file — a FIFO, which would block in
 * open() and read(), a device such as /dev/zero, which never ends — is
 * refused by kind before a byte is read, and a file larger than the caller's
 * bound is refused instead of filling memory.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs"
import { Either } from "effect"

const kind = (stat: Stats): string =>
  stat.isFIFO()
    ? "a FIFO (named pipe)"
    : stat.isDirectory()
    ? "a directory"
    : stat.isCharacterDevice()
    ? "a character device"
    : stat.isBlockDevice()
    ? "a block device"
    : stat.isSocket()
    ? "a socket"
    : "not a regular file"

export const describeBytes = (n: number): string =>
  n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MiB` : n >= 1024 ? `${Math.round(n / 1024)} KiB` : `${n} bytes`

/** The file's text (UTF-8), or why it was not read: a phrase to follow the file's name. */
export const read = (file: string, maxBytes: number): Either.Either<string, string> => {
  let fd: number
  try {
    // Non-blocking: opening a FIFO for reading would otherwise wait for a writer.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (e) {
    return Either.left(`cannot be read: ${e instanceof Error ? e.message : String(e)}`)
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) return Either.left(`is ${kind(stat)}, not a regular file: not read`)
    const tooLarge = Either.left(`is larger than ${describeBytes(maxBytes)}: not read`)
    if (stat.size > maxBytes) return tooLarge
    // Read to the end, not to the size first seen: the file may be growing.
    let buffer = Buffer.alloc(Math.min(maxBytes + 1, stat.size + 1))
    let length = 0
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) return tooLarge
        const grown = Buffer.alloc(Math.min(maxBytes + 1, buffer.length * 2))
        buffer.copy(grown)
        buffer = grown
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null)
      if (n === 0) break
      length += n
    }
    return Either.right(buffer.toString("utf8", 0, length))
  } catch (e) {
    return Either.left(`cannot be read: ${e instanceof Error ? e.message : String(e)}`)
  } finally {
    closeSync(fd)
  }
}
