/**
 * Writing a JSONL log durably:
 * - the first write publishes a complete file (header and events) written to a
 *   temporary name and synced, linked into place (a link never replaces an
 *   existing file), then the directory is synced;
 * - later writes append and sync; a write or sync that fails is rolled back to
 *   the previous length, so retrying the same events leaves no gap or duplicate;
 * - a torn tail is copied to a temporary file, synced, linked to a sidecar
 *   `<file>.torn-<n>` (a fresh n, never overwriting), and only then cut from
 *   the log;
 * - a temporary file a stopped process left (`leftoversOf`) is removed by the
 *   next holder of the session's lease.
 */
import { basename, dirname, join } from "node:path"
import type { SessionLog } from "@turnlog/protocol"
import { errorCode, type FileIo, syncDirectory, writeAll } from "./FileIo.js"
import type { TornTail } from "./JsonlScan.js"
import { serializeEvents, Streamed } from "./StreamedRefs.js"

/** Event lines as they are, each with its newline (no references: valid in every version). */
export const serialize = (events: ReadonlyArray<SessionLog.SessionEvent>): string => serializeEvents(events)

export class AlreadyExists extends Error {
  constructor(readonly file: string) {
    super(`${file} already exists`)
  }
}

/** An open log being appended to by the lease holder. */
export interface OpenLog {
  readonly fd: number
  /** The length of everything acknowledged. */
  size: number
  /** A failed write could not be rolled back: cut back before the next write. */
  dirty: boolean
  /** What the log's latest request streamed, as far as acknowledged (see `StreamedRefs`). */
  streamed: Streamed
}

/**
 * The temporary files of a log: the log being published, and a torn tail being
 * copied aside. Both are written only under the session's lease, so each has
 * one fixed name; whatever a lease holder finds under them was left by a
 * process that stopped midway (killed, or the machine went down) and holds
 * nothing the log does not (a torn tail is cut only once its copy is linked).
 */
const publishTemp = (file: string) => join(dirname(file), `.${basename(file)}.tmp`)
const tornTemp = (file: string) => join(dirname(file), `.${basename(file)}.torn.tmp`)

/** A temporary file a stopped process left beside a log, and its size. */
export interface Leftover {
  readonly file: string
  readonly bytes: number
}

/**
 * Earlier builds named a torn tail's copy `.<log>.torn.<pid>-<random>.tmp`.
 * Such a copy is left only by a process killed before it cut the tail, so
 * the log still ends in that tail: these names are looked for (in the
 * directory listing) only when it does.
 */
const olderTornTemps = (io: FileIo, file: string): Array<string> => {
  const prefix = `.${basename(file)}.torn.`
  return io.readdirSync(dirname(file))
    .filter((name) => name.startsWith(prefix) && /^\d+-[0-9a-f]{8}\.tmp$/.test(name.slice(prefix.length)))
    .map((name) => join(dirname(file), name))
}

const tempsOf = (io: FileIo, file: string, torn: boolean): Array<string> => [
  publishTemp(file),
  tornTemp(file),
  ...(torn ? olderTornTemps(io, file) : []),
]

/**
 * The temporary files left beside `file` (see `publishTemp`), without
 * touching them; `torn`: the log ends in a torn tail (see `olderTornTemps`).
 */
export const leftoversOf = (io: FileIo, file: string, torn: boolean): Array<Leftover> => {
  const found: Array<Leftover> = []
  for (const temp of tempsOf(io, file, torn)) {
    let fd: number
    try {
      fd = io.openSync(temp, "r")
    } catch (error) {
      if (errorCode(error) === "ENOENT") continue
      throw error
    }
    try {
      found.push({ file: temp, bytes: io.fstatSync(fd).size })
    } finally {
      io.closeSync(fd)
    }
  }
  return found
}

/** Removes the temporary files left beside `file`; only a holder of its lease may (see `publishTemp`). */
export const removeLeftovers = (io: FileIo, file: string, torn: boolean): void => {
  for (const temp of tempsOf(io, file, torn)) {
    try {
      io.unlinkSync(temp)
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error
    }
  }
}

/** Bytes gathered before one write when a log is published: a session of any size is never one string. */
const PUBLISH_PIECE = 1 << 20

/** Writes header and events as log lines, a piece at a time; returns the bytes written. */
const writeLines = (
  io: FileIo,
  fd: number,
  header: SessionLog.SessionHeader,
  events: ReadonlyArray<SessionLog.SessionEvent>,
  streamed: Streamed,
): number => {
  let size = 0
  let piece = JSON.stringify(header) + "\n"
  const put = () => {
    const bytes = Buffer.from(piece)
    writeAll(io, fd, bytes)
    size += bytes.length
    piece = ""
  }
  for (const event of events) {
    const line = JSON.stringify(streamed.encode(event)) + "\n"
    if (piece.length + line.length > PUBLISH_PIECE) put()
    piece += line
  }
  put()
  return size
}

/** A log published: its length and its writer's state after the events. */
export interface Published {
  readonly size: number
  readonly streamed: Streamed
}

/**
 * Publishes a new log — header and first events, written and synced under a
 * temporary name, then linked into place — and returns its length. Fails with
 * `AlreadyExists` rather than replace a file; any failure before the link
 * leaves no log (the temporary file is removed), so a session is published
 * whole or not at all. Once it returns, the file is there: `completePublish`
 * makes its name durable and opens it for appending.
 */
export const publish = (
  io: FileIo,
  file: string,
  header: SessionLog.SessionHeader,
  events: ReadonlyArray<SessionLog.SessionEvent>,
): Published => {
  const temp = publishTemp(file)
  const tempFd = io.openSync(temp, "wx")
  const streamed = new Streamed(header.version)
  try {
    let size: number
    try {
      size = writeLines(io, tempFd, header, events, streamed)
      io.fsyncSync(tempFd)
    } finally {
      io.closeSync(tempFd)
    }
    try {
      io.linkSync(temp, file)
    } catch (error) {
      if (errorCode(error) === "EEXIST") throw new AlreadyExists(file)
      throw error
    }
    return { size, streamed }
  } finally {
    try {
      io.unlinkSync(temp)
    } catch {
      // Already gone or never created: nothing to clean.
    }
  }
}

/** The log changed under a writer that holds it: someone else writes it too. */
export class ForeignWrite extends Error {
  constructor(readonly found: number, readonly expected: number) {
    super(
      `the log is ${found} bytes where this process left ${expected}: another process is writing this session, ` +
        "so nothing was appended",
    )
  }
}

/** The log was unlinked while its writer held it open: appending would write to a file nobody can read. */
export class Vanished extends Error {
  constructor() {
    super("the log was removed while the session was open for writing, so nothing was appended")
  }
}

/** Syncs the directory of a published log (so its name survives a crash) and opens it for appending. */
export const completePublish = (io: FileIo, file: string, published: Published): OpenLog => {
  syncDirectory(io, dirname(file))
  return { fd: io.openSync(file, "a"), size: published.size, dirty: false, streamed: published.streamed }
}

/**
 * Opens a log of format `version` for appending after the `scanned` bytes its
 * reader saw (the file must still hold exactly those). What the log streamed
 * before is not known to the writer: its next message refers to nothing
 * before the next request starts.
 */
export const openLog = (io: FileIo, file: string, scanned: number, version: number): OpenLog => {
  const fd = io.openSync(file, "a")
  const size = io.fstatSync(fd).size
  if (size !== scanned) {
    io.closeSync(fd)
    throw new ForeignWrite(size, scanned)
  }
  return { fd, size, dirty: false, streamed: new Streamed(version) }
}

/**
 * Appends and syncs; on failure the file is cut back to its previous length.
 * Appending after half-written bytes would turn a harmless torn tail into
 * damage followed by committed events, so a failed cut is retried first.
 */
export const appendEvents = (io: FileIo, log: OpenLog, events: ReadonlyArray<SessionLog.SessionEvent>): void => {
  const stat = io.fstatSync(log.fd)
  if (stat.nlink === 0) throw new Vanished()
  if (log.dirty) {
    io.ftruncateSync(log.fd, log.size)
    log.dirty = false
  } else {
    // Bytes this process did not write: another writer holds the session too
    // (a lease lost in a race, a copy of the home). Appending would repeat its
    // seqs and leave a log nobody can read; refusing keeps what it wrote.
    if (stat.size !== log.size) throw new ForeignWrite(stat.size, log.size)
  }
  // The writer's state moves past these events only once they are durable.
  const streamed = log.streamed.copy()
  const text = serializeEvents(events, streamed)
  const length = Buffer.byteLength(text)
  try {
    const written = io.writeStringSync(log.fd, text)
    // A short write (a disk filling up): the rest from the bytes, or its error.
    if (written < length) writeAll(io, log.fd, Buffer.from(text).subarray(written))
    // fdatasync also syncs the file length, which is what an append changes.
    io.fdatasyncSync(log.fd)
  } catch (error) {
    try {
      io.ftruncateSync(log.fd, log.size)
    } catch {
      log.dirty = true
    }
    throw error
  }
  log.size += length
  log.streamed = streamed
}

/** Keeps the torn bytes in a fresh sidecar, then cuts them from the log. Returns the sidecar path. */
export const cutTail = (io: FileIo, file: string, torn: TornTail): string => {
  const fd = io.openSync(file, "r+")
  try {
    const bytes = Buffer.allocUnsafe(torn.bytes)
    let read = 0
    while (read < torn.bytes) {
      const n = io.readSync(fd, bytes, read, torn.bytes - read, torn.offset + read)
      if (n === 0) break
      read += n
    }
    const sidecar = writeSidecar(io, file, bytes.subarray(0, read))
    syncDirectory(io, dirname(file))
    io.ftruncateSync(fd, torn.offset)
    io.fsyncSync(fd)
    return sidecar
  } finally {
    io.closeSync(fd)
  }
}

/**
 * Writes the torn bytes under a temporary name, synced, then links them to the
 * first free `<file>.torn-<n>` (a link never replaces a file): a sidecar name
 * always holds the complete bytes, and a failure or a kill mid-copy leaves no
 * sidecar that looks complete (a failure leaves nothing at all).
 */
const writeSidecar = (io: FileIo, file: string, bytes: Uint8Array): string => {
  const temp = tornTemp(file)
  const fd = io.openSync(temp, "wx")
  try {
    try {
      writeAll(io, fd, bytes)
      io.fsyncSync(fd)
    } finally {
      io.closeSync(fd)
    }
    for (let n = 1;; n++) {
      const sidecar = `${file}.torn-${n}`
      try {
        io.linkSync(temp, sidecar)
        return sidecar
      } catch (error) {
        if (errorCode(error) !== "EEXIST") throw error
      }
    }
  } finally {
    try {
      io.unlinkSync(temp)
    } catch {
      // Already gone: nothing to clean.
    }
  }
}
