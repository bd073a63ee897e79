/**
 * Reading a JSONL log: the header on line 1, then one event per line with
 * contiguous seq. Decides what a damaged file is:
 * - a last line without its newline, or unparsable lines with no complete
 *   event after them, is a torn tail (a write the crash interrupted, never
 *   acknowledged): reported with its line and byte offset so `open` can cut it;
 * - damage followed by a complete event is `SessionCorrupt`, and a line
 *   that parses but is not an event of this version is refused (`UnknownEvent`
 *   or `SessionCorrupt`): data that was acknowledged is never cut or skipped.
 *
 * What is wrong with a log is returned as a `StoreError` (`Either.left`); only
 * the operating system's failures are thrown, for the layer to map once.
 */
import { constants, fstatSync, type Stats } from "node:fs"
import { Either } from "effect"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import { SessionCorrupt, SessionNotFound, type StoreError, UnknownEvent, UnsupportedVersion } from "../StoreError.js"
import { SummaryBuilder, type Tally } from "../Summary.js"
import type { SessionSummary } from "../SessionStore.js"
import { classify, committedAfterDamage, decodeWith, isRawChunk, oneSentence } from "./EventLine.js"
import { errorCode, type FileIo } from "./FileIo.js"
import { Streamed } from "./StreamedRefs.js"
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
export const parseHeader = (
  line: string,
  file: string,
  id: string,
): Either.Either<SessionLog.SessionHeader, StoreError> => {
  const corrupt = (detail: string) => Either.left(new SessionCorrupt({ file, line: 1, detail }))
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return corrupt("the session header is not JSON")
  }
  const version = typeof value === "object" && value !== null ? (value as { version?: unknown }).version : undefined
  if (typeof version === "number" && version > SessionLog.LOG_VERSION) {
    return Either.left(new UnsupportedVersion({ file, found: version, supported: SessionLog.LOG_VERSION }))
  }
  let header: ReturnType<typeof SessionLog.decodeHeader>
  let why: string
  try {
    header = SessionLog.decodeHeader(value)
    why = Either.isLeft(header) ? oneSentence(header.left) : ""
  } catch {
    // The schema's message formatter can throw on hostile values.
    return corrupt("not a session header")
  }
  if (Either.isLeft(header)) {
    return corrupt(
      typeof value === "object" && value !== null && (value as { type?: unknown }).type !== "session"
        ? `the first line is not a session header (${why})`
        : `not a valid session header: ${why}`,
    )
  }
  if (header.right.id !== id) return corrupt(`the header names session ${header.right.id}`)
  return Either.right(header.right)
}

/**
 * Opens a log for reading, refusing what is not a regular file before a byte
 * is read: a FIFO would block in open() and in every read (non-blocking open
 * returns at once), a device would never end. `undefined` when there is no log.
 */
export const openForRead = (io: FileIo, file: string): Either.Either<number | undefined, StoreError> => {
  let fd: number
  try {
    fd = io.openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    if (errorCode(error) === "ENOENT") return Either.right(undefined)
    throw error
  }
  const stat = fstatSync(fd)
  if (!stat.isFile()) {
    io.closeSync(fd)
    return Either.left(new SessionCorrupt({ file, line: 1, detail: `not a regular file (${fileKind(stat)}): not read` }))
  }
  return Either.right(fd)
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

const readHeader = (reader: LineReader, file: string, id: string): Either.Either<SessionLog.SessionHeader, StoreError> => {
  const line = reader.next()
  if (line === undefined) return Either.left(new SessionCorrupt({ file, line: 1, detail: "the file is empty" }))
  if (!reader.complete) {
    return Either.left(new SessionCorrupt({ file, line: 1, detail: "the session header is incomplete" }))
  }
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
 * An `assistant/chunk` (or batched `assistant/chunks`) line whose framing is
 * intact — an event object with the expected seq, a time and an object of
 * data (what the database layers check too): what
 * integrity needs of a raw chunk a completed step already assembled.
 */
const framedRawChunk = (value: unknown, expected: number): boolean => {
  if (typeof value !== "object" || value === null) return false
  const line = value as { readonly seq?: unknown; readonly time?: unknown; readonly type?: unknown; readonly data?: unknown }
  return isRawChunk(line.type) && line.seq === expected && typeof line.time === "string" &&
    typeof line.data === "object" && line.data !== null && !Array.isArray(line.data)
}

interface Pending {
  readonly value: unknown
  readonly line: number
}

/**
 * The one pass over a log's events, shared by `read`, `open` and `list` so
 * they never disagree about a file: each event is validated and handed to
 * `onEvent` in order; the start of the torn tail, if any, is returned.
 *
 * `skipChunks` (for `open`): raw chunks of completed steps — any followed by
 * another event — are checked for framing only (intact JSON, the seq in
 * order) and not handed on; the run of raw chunks that ends the log (the
 * step in flight when a process stopped) is decoded in full and handed on.
 */
const scanEvents = (
  reader: LineReader,
  file: string,
  streamed: Streamed,
  onEvent: (event: SessionLog.SessionEvent) => void,
  skipChunks = false,
): Either.Either<{ readonly line: number; readonly offset: number } | undefined, StoreError> => {
  let count = 0
  let damage: { readonly line: number; readonly offset: number } | undefined
  let pending: Array<Pending> = []
  for (let line = reader.next(); line !== undefined; line = reader.next()) {
    const n = reader.lineNumber
    if (!reader.complete) {
      damage ??= { line: n, offset: reader.lineStart() }
      break
    }
    let value: unknown
    let parsed = reader.validUtf8
    if (parsed) {
      try {
        value = JSON.parse(line)
      } catch {
        parsed = false
      }
    }
    if (damage === undefined && skipChunks && parsed && framedRawChunk(value, count + 1)) {
      count++
      // Not decoded, but what it streamed is what the message after it may refer to.
      streamed.observe(value)
      pending.push({ value, line: n })
      continue
    }
    const result = !parsed
      ? { _tag: "Unparsable" as const }
      : damage !== undefined
      // After damage only whether a complete event follows matters; its references are not followed.
      ? committedAfterDamage(value)
      : decodeWith(streamed, value)
    if (damage !== undefined) {
      // A write the crash interrupted leaves only its own unacknowledged lines
      // after the damage, ending in a torn one; a complete event after it is
      // one that was written after the damaged line — so that line was
      // committed, and the file is damaged, not torn.
      if (result._tag === "Event") return Either.left(damagedBefore(file, damage.line, result.event, n))
      continue
    }
    switch (result._tag) {
      case "Event": {
        const expected = count + 1
        if (result.event.seq !== expected) return Either.left(expectedSeq(file, n, expected, result.event.seq))
        count++
        // An event after raw chunks: their step is over, they are not handed on.
        if (pending.length > 0) pending = []
        onEvent(result.event)
        break
      }
      case "Unparsable":
        damage = { line: n, offset: reader.lineStart() }
        break
      case "Unknown":
        return Either.left(new UnknownEvent({ file, line: n, type: result.type }))
      case "Invalid":
        return Either.left(new SessionCorrupt({ file, line: n, detail: result.detail }))
    }
  }
  // The step in flight: the one whose chunks an open turn is recovered from.
  for (const chunk of pending) {
    // Observed already, when it was read; its packed entries (version 4) put back now that they are needed.
    const packed = streamed.unpack(chunk.value)
    const result = packed === undefined ? classify(chunk.value) : { _tag: "Invalid" as const, detail: packed }
    switch (result._tag) {
      case "Event":
        onEvent(result.event)
        break
      case "Unknown":
        return Either.left(new UnknownEvent({ file, line: chunk.line, type: result.type }))
      case "Invalid":
        return Either.left(new SessionCorrupt({ file, line: chunk.line, detail: result.detail }))
      case "Unparsable":
        return Either.left(new SessionCorrupt({ file, line: chunk.line, detail: "not JSON" }))
    }
  }
  return Either.right(damage)
}

/**
 * Reads and validates a whole log. `skipChunks` leaves out the raw chunks of
 * completed steps, checked for framing only (see `scanEvents`).
 */
export const scanLog = (
  io: FileIo,
  file: string,
  id: SessionId,
  skipChunks = false,
): Either.Either<Scan, StoreError> => {
  const opened = openForRead(io, file)
  if (Either.isLeft(opened)) return Either.left(opened.left)
  const fd = opened.right
  if (fd === undefined) return Either.left(new SessionNotFound({ sessionId: id }))
  try {
    const reader = new LineReader(io, fd)
    return Either.flatMap(readHeader(reader, file, id), (header) => {
      const events: Array<SessionLog.SessionEvent> = []
      return Either.map(scanEvents(reader, file, new Streamed(header.version), (event) => events.push(event), skipChunks), (damage): Scan => {
        if (damage === undefined) return { header, events, size: reader.completeEnd() }
        const size = io.fstatSync(fd).size
        return {
          header,
          events,
          torn: { line: damage.line, offset: damage.offset, bytes: size - damage.offset },
          size: damage.offset,
        }
      })
    })
  } finally {
    io.closeSync(fd)
  }
}

/** What `list` learns of a log: its summary (none without events) and whether it ends in a torn tail. */
export interface Summarized {
  readonly header: SessionLog.SessionHeader
  readonly summary: SessionSummary | undefined
  readonly tally: Tally
  readonly torn?: TornTail
  /** The bytes the log holds without its torn tail (as `Scan.size`). */
  readonly size: number
}

/**
 * The `list` summary of a log open for reading (`openForRead`), judged by
 * the very pass `read` makes: a log `read` refuses is refused here with the
 * same reason, and a torn tail (which the next `open` repairs) is left out
 * of the summary as `read` leaves it out. `keep(header)` may return a
 * callback that is handed every event of the pass as well (what `open`
 * needs of the log, gathered by the same read).
 */
export const summarizeOpen = (
  io: FileIo,
  fd: number,
  file: string,
  id: string,
  keep?: (header: SessionLog.SessionHeader) => ((event: SessionLog.SessionEvent) => void) | undefined,
): Either.Either<Summarized, StoreError> => {
  const reader = new LineReader(io, fd)
  return Either.flatMap(readHeader(reader, file, id), (header) => {
    const summary = new SummaryBuilder(header)
    const kept = keep?.(header)
    return Either.map(
      scanEvents(reader, file, new Streamed(header.version), (event) => {
        summary.add(event.type, event.time, event.seq)
        if (event.type === "user/message" && summary.needsTitle) summary.addTitle(event)
        kept?.(event)
      }),
      (damage): Summarized => {
        const found = { header, summary: summary.result(), tally: summary.tally() }
        if (damage === undefined) return { ...found, size: reader.completeEnd() }
        const size = io.fstatSync(fd).size
        return { ...found, torn: { line: damage.line, offset: damage.offset, bytes: size - damage.offset }, size: damage.offset }
      },
    )
  })
}
