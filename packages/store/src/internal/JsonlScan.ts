/**
 * Reading a JSONL log: the header on line 1, then one event per line with
 * contiguous seq. Decides what a damaged file is:
 * - a last line without its newline, or unparsable lines with no complete
 *   event after them, is a torn tail (a write the crash interrupted, never
 *   acknowledged): reported with its line and byte offset so `open` can cut it;
 * - damage followed by a complete event is `SessionCorrupt`, and a line
 *   that parses but is not an event of this version is refused (`UnknownEvent`
 *   or `SessionCorrupt`): data that was acknowledged is never cut or skipped.
 */
import { constants, fstatSync, type Stats } from "node:fs"
import { Either } from "effect"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import { SessionCorrupt, SessionNotFound, UnknownEvent, UnsupportedVersion } from "../StoreError.js"
import { SummaryBuilder } from "../Summary.js"
import type { SessionSummary } from "../SessionStore.js"
import { decodeLine } from "./EventLine.js"
import { errorCode, type FileIo } from "./FileIo.js"
import { LineReader } from "./LineReader.js"

export interface TornTail {
  /** 1-based line number of the first torn line. */
  readonly line: number
  /** File offset where the torn bytes start (the length the file is cut to). */
  readonly offset: number
  readonly bytes: number
}

export interface Scan {
  readonly header: SessionLog.SessionHeader
  readonly events: Array<SessionLog.SessionEvent>
  readonly torn?: TornTail
  /** The bytes the log holds without its torn tail: what a writer appends after. */
  readonly size: number
}

/** Line 1: newer versions are refused before their shape is judged. */
export const parseHeader = (line: string, file: string, id: string): SessionLog.SessionHeader => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    throw new SessionCorrupt({ file, line: 1, detail: "the session header is not JSON" })
  }
  const version = typeof value === "object" && value !== null ? (value as { version?: unknown }).version : undefined
  if (typeof version === "number" && version > SessionLog.LOG_VERSION) {
    throw new UnsupportedVersion({ file, found: version, supported: SessionLog.LOG_VERSION })
  }
  let header: ReturnType<typeof SessionLog.decodeHeader>
  try {
    header = SessionLog.decodeHeader(value)
  } catch {
    // The schema's message formatter can throw on hostile values.
    throw new SessionCorrupt({ file, line: 1, detail: "not a session header" })
  }
  if (Either.isLeft(header)) {
    throw new SessionCorrupt({ file, line: 1, detail: `not a session header: ${header.left.message}` })
  }
  if (header.right.id !== id) {
    throw new SessionCorrupt({ file, line: 1, detail: `the header names session ${header.right.id}` })
  }
  return header.right
}

/**
 * Opens a log for reading, refusing what is not a regular file before a byte
 * is read: a FIFO would block in open() and in every read (non-blocking open
 * returns at once), a device would never end.
 */
const openForRead = (io: FileIo, file: string, id: string): number => {
  let fd: number
  try {
    fd = io.openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    if (errorCode(error) === "ENOENT") throw new SessionNotFound({ sessionId: id })
    throw error
  }
  const stat = fstatSync(fd)
  if (!stat.isFile()) {
    io.closeSync(fd)
    throw new SessionCorrupt({ file, line: 1, detail: `not a regular file (${fileKind(stat)}): not read` })
  }
  return fd
}

const fileKind = (stat: Stats): string =>
  stat.isFIFO()
    ? "a FIFO"
    : stat.isDirectory()
    ? "a directory"
    : stat.isCharacterDevice() || stat.isBlockDevice()
    ? "a device"
    : stat.isSocket()
    ? "a socket"
    : "not a file"

const readHeader = (reader: LineReader, file: string, id: string) => {
  const line = reader.next()
  if (line === undefined) throw new SessionCorrupt({ file, line: 1, detail: "the file is empty" })
  if (!reader.complete) throw new SessionCorrupt({ file, line: 1, detail: "the session header is incomplete" })
  return parseHeader(line, file, id)
}

/**
 * An unreadable line with a complete event after it (at line `n`): that line
 * was committed — the file is damaged, not torn.
 */
const damagedBefore = (file: string, line: number, event: SessionLog.SessionEvent, n: number): SessionCorrupt =>
  new SessionCorrupt({
    file,
    line,
    detail: event.type === "turn/end"
      ? `unreadable line followed by a committed turn end (line ${n})`
      : `unreadable line followed by a complete event (seq ${event.seq}, line ${n})`,
  })

const expectedSeq = (file: string, n: number, expected: number, found: number): SessionCorrupt =>
  new SessionCorrupt({ file, line: n, detail: `expected event seq ${expected}, found ${found}` })

/**
 * The one pass over a log's events, shared by `read` and `list` so the two
 * never disagree about a file: each event is validated and handed to
 * `onEvent` in order; the torn tail, if any, is returned. Throws the store's
 * tagged errors.
 */
const scanEvents = (
  reader: LineReader,
  file: string,
  onEvent: (event: SessionLog.SessionEvent) => void,
): { readonly line: number; readonly offset: number } | undefined => {
  let count = 0
  let damage: { readonly line: number; readonly offset: number } | undefined
  for (let line = reader.next(); line !== undefined; line = reader.next()) {
    const n = reader.lineNumber
    if (!reader.complete) {
      damage ??= { line: n, offset: reader.lineStart() }
      break
    }
    const result = reader.validUtf8 ? decodeLine(line) : { _tag: "Unparsable" as const }
    if (damage !== undefined) {
      // A write the crash interrupted leaves only its own unacknowledged lines
      // after the damage, ending in a torn one; a complete event after it is
      // one that was written after the damaged line — so that line was
      // committed, and the file is damaged, not torn.
      if (result._tag === "Event") throw damagedBefore(file, damage.line, result.event, n)
      continue
    }
    switch (result._tag) {
      case "Event": {
        const expected = count + 1
        if (result.event.seq !== expected) throw expectedSeq(file, n, expected, result.event.seq)
        count++
        onEvent(result.event)
        break
      }
      case "Unparsable":
        damage = { line: n, offset: reader.lineStart() }
        break
      case "Unknown":
        throw new UnknownEvent({ file, line: n, type: result.type })
      case "Invalid":
        throw new SessionCorrupt({ file, line: n, detail: result.detail })
    }
  }
  return damage
}

/** Reads and validates a whole log. Throws the store's tagged errors. */
export const scanLog = (io: FileIo, file: string, id: SessionId): Scan => {
  const fd = openForRead(io, file, id)
  try {
    const reader = new LineReader(io, fd)
    const header = readHeader(reader, file, id)
    const events: Array<SessionLog.SessionEvent> = []
    const damage = scanEvents(reader, file, (event) => events.push(event))
    if (damage === undefined) return { header, events, size: reader.completeEnd() }
    const size = io.fstatSync(fd).size
    return {
      header,
      events,
      torn: { line: damage.line, offset: damage.offset, bytes: size - damage.offset },
      size: damage.offset,
    }
  } finally {
    io.closeSync(fd)
  }
}

/**
 * The `list` summary of a log, judged by the very pass `read` makes: a log
 * `read` refuses is refused here with the same reason, and a torn tail (which
 * the next `open` repairs) is left out of the summary as `read` leaves it out.
 */
export const summarizeLog = (io: FileIo, file: string, id: string): SessionSummary | undefined => {
  const fd = openForRead(io, file, id)
  try {
    const reader = new LineReader(io, fd, 1 << 20)
    const summary = new SummaryBuilder(readHeader(reader, file, id))
    scanEvents(reader, file, (event) => {
      summary.add(event.type, event.time)
      if (event.type === "user/message" && summary.needsTitle) summary.addTitle(event)
    })
    return summary.result()
  } finally {
    io.closeSync(fd)
  }
}
