/**
 * Reading a JSONL log incrementally from a byte offset: the streaming reads
 * (`stream`, `follow`) take a page of events at a time and keep only where
 * they stopped, never the log. A page is judged by the rules `read` applies
 * (see `JsonlScan`), in the same words: a complete event after unreadable
 * lines is damage (an error naming the file and line), a line that parses but
 * is not an event of this version is refused, seq must continue. What follows
 * the last good event and is not followed by a complete one — a line without
 * its newline, or unparsable lines at the end — is a write in progress (or a
 * torn tail a crash left): the page stops before it, so a follower reads it
 * again once it is complete.
 */
import { Either } from "effect"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import { SessionCorrupt, SessionNotFound, type StoreError, UnknownEvent } from "../StoreError.js"
import { decodeAfterDamage, decodeLine } from "./EventLine.js"
import type { FileIo } from "./FileIo.js"
import { openForRead, parseHeader } from "./JsonlScan.js"
import { LineReader } from "./LineReader.js"
import { Streamed } from "./StreamedRefs.js"

/**
 * Where a reader stopped: the offset of the next line to read (0: the header),
 * its line number, the seq it must hold, and what the log's latest request
 * streamed up to there (none before the header is read).
 */
export interface Position {
  readonly offset: number
  readonly line: number
  readonly nextSeq: number
  readonly streamed: Streamed | undefined
}

export const START: Position = { offset: 0, line: 1, nextSeq: 1, streamed: undefined }

export interface Page {
  readonly header?: SessionLog.SessionHeader
  readonly events: Array<SessionLog.SessionEvent>
  readonly position: Position
  /** What follows the last complete event without being one (yet): its first line and size. */
  readonly pending?: { readonly line: number; readonly bytes: number }
}

/**
 * Small reads: a page is a few hundred events, and a follower rereads the end
 * of the file often. Kept under the engine's large-object size, so each
 * read's text dies young instead of piling up in the old generation until a
 * full collection (a 10,000-turn `show` held ~25 MB more at 256 KB).
 */
const CHUNK = 64 << 10

/** The log opened for reading (a FIFO or directory in its place refused in `read`'s words); no log is `SessionNotFound`. */
const open = (io: FileIo, file: string, id: SessionId): Either.Either<number, StoreError> =>
  Either.flatMap(openForRead(io, file), (fd) => fd === undefined ? Either.left(new SessionNotFound({ sessionId: id })) : Either.right(fd))

/**
 * Up to `max` events from `position` on (events before `fromSeq` are checked
 * but not returned, and do not count). Fewer than `max` means the end of what
 * is complete now. Only the operating system's failures are thrown.
 */
export const readPage = (
  io: FileIo,
  file: string,
  id: SessionId,
  position: Position,
  fromSeq: number,
  max: number,
): Either.Either<Page, StoreError> => {
  const opened = open(io, file, id)
  if (Either.isLeft(opened)) return Either.left(opened.left)
  const fd = opened.right
  try {
    const size = io.fstatSync(fd).size
    if (size < position.offset) {
      return Either.left(
        new SessionCorrupt({
          file,
          line: position.line,
          detail: `the log is ${size} bytes, shorter than the ${position.offset} already read: committed data was removed`,
        }),
      )
    }
    const reader = new LineReader(io, fd, CHUNK, position.offset, position.line)
    let header: SessionLog.SessionHeader | undefined
    // Advanced by this page's lines; a copy, so a page read again starts from where it did. Only
    // lines that are events (or end the page in an error) advance it: where the page ends, it ends.
    let streamed = position.streamed?.copy()
    // The offset of the next line, kept by adding up line lengths (asking the reader for each would cost a chunk per line).
    let at = position.offset
    if (position.offset === 0) {
      const line = reader.next()
      if (line === undefined) return Either.left(new SessionCorrupt({ file, line: 1, detail: "the file is empty" }))
      if (!reader.complete) return Either.left(new SessionCorrupt({ file, line: 1, detail: "the session header is incomplete" }))
      const parsed = parseHeader(line, file, id)
      if (Either.isLeft(parsed)) return Either.left(parsed.left)
      header = parsed.right
      streamed = new Streamed(header.version)
      at = Buffer.byteLength(line) + 1
    }
    if (streamed === undefined) return Either.left(new SessionCorrupt({ file, line: position.line, detail: "read from past the header without its version" }))
    const events: Array<SessionLog.SessionEvent> = []
    let nextSeq = position.nextSeq
    // The end of the last complete event read, and the line after it.
    let end = at
    let endLine = reader.lineNumber + 1
    let damage: { readonly line: number; readonly offset: number } | undefined
    for (let line = reader.next(); line !== undefined; line = reader.next()) {
      const n = reader.lineNumber
      const start = at
      if (!reader.complete) {
        damage ??= { line: n, offset: start }
        break
      }
      at += Buffer.byteLength(line) + 1
      const result = !reader.validUtf8
        ? { _tag: "Unparsable" as const }
        : damage !== undefined
        ? decodeAfterDamage(line)
        : decodeLine(line, streamed)
      if (damage !== undefined) {
        if (result._tag === "Event") {
          return Either.left(
            new SessionCorrupt({
              file,
              line: damage.line,
              detail: result.event.type === "turn/end"
                ? `unreadable line followed by a committed turn end (line ${n})`
                : `unreadable line followed by a complete event (seq ${result.event.seq}, line ${n})`,
            }),
          )
        }
        continue
      }
      switch (result._tag) {
        case "Event": {
          if (result.event.seq !== nextSeq) {
            return Either.left(
              new SessionCorrupt({ file, line: n, detail: `expected event seq ${nextSeq}, found ${result.event.seq}` }),
            )
          }
          nextSeq++
          if (result.event.seq >= fromSeq) events.push(result.event)
          end = at
          endLine = n + 1
          if (events.length >= max) {
            return Either.right({
              ...(header ? { header } : {}),
              events,
              position: { offset: end, line: endLine, nextSeq, streamed },
            })
          }
          break
        }
        case "Unparsable":
          damage = { line: n, offset: start }
          break
        case "Unknown":
          return Either.left(new UnknownEvent({ file, line: n, type: result.type }))
        case "Invalid":
          return Either.left(new SessionCorrupt({ file, line: n, detail: result.detail }))
      }
    }
    return Either.right({
      ...(header ? { header } : {}),
      events,
      position: { offset: end, line: endLine, nextSeq, streamed },
      ...(damage !== undefined ? { pending: { line: damage.line, bytes: io.fstatSync(fd).size - damage.offset } } : {}),
    })
  } finally {
    io.closeSync(fd)
  }
}
