/**
 * The JSONL log format as a portable file, for moving a session between
 * stores: `encode` writes a session exactly as the JSONL layer writes its log
 * (the header line, then one event per line), and `decode` verifies a whole
 * file before anything is stored — the header (a newer version refused as
 * newer), every line an event of this version, seq contiguous from 1 —
 * through the JSONL layer's own line decoding, so a file this refuses is one
 * the JSONL reader refuses too, in the same words, naming the file and line.
 *
 * Events are handled generically: whatever the protocol's `SessionLog`
 * schemas hold is what is accepted and written.
 *
 * A file is also refused for what a store could not serve or write (the
 * JSONL reader would read it, but an import must not store it): an id that
 * is not a session id every store serves (`isSessionId`), a cwd that is not
 * an absolute path, a line over `MAX_LINE_BYTES`, a line nested more than
 * `MAX_DEPTH` levels deep. Verification and writing agree: what passes here
 * is written whole.
 */
import { isAbsolute } from "node:path"
import { Either } from "effect"
import { sessionIdProblem, type SessionLog } from "@turnlog/protocol"
import { decodeAfterDamage, decodeLine } from "./internal/EventLine.js"
import { serialize } from "./internal/JsonlFile.js"
import { nestsDeeperThan } from "./internal/Nesting.js"
import { serializeEvents, Streamed } from "./internal/StreamedRefs.js"
import { parseHeader } from "./internal/JsonlScan.js"
import { SessionCorrupt, type StoreError, UnknownEvent } from "./StoreError.js"

export interface Session {
  readonly header: SessionLog.SessionHeader
  readonly events: ReadonlyArray<SessionLog.SessionEvent>
}

/** The most bytes one line (an event, or the header) may take: within what every store writes and reads back as one value. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024

/** The deepest a line may nest objects and arrays (see `internal/Nesting`). */
export const MAX_DEPTH = 1000

/** A value quoted in a refusal, cut short when long: a hostile file must not fill the terminal. */
const quoted = (text: string): string => text.length <= 40 ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, 40))}… (${text.length} characters)`

const MIB = 1024 * 1024

/** The header line, newline included, as the JSONL layer writes it. */
export const encodeHeader = (header: SessionLog.SessionHeader): string => JSON.stringify(header) + "\n"

/** Event lines, each with its newline, every message whole (what any version reads). */
export const encodeEvents = (events: ReadonlyArray<SessionLog.SessionEvent>): string => serialize(events)

/**
 * The event lines of one session, in order, a piece at a time, as the JSONL
 * layer appends them: in a version-4 session a message refers to what its
 * request streamed instead of holding it again (see `StreamedRefs`), so the
 * encoder follows the session from its first event.
 */
export const encoder = (header: SessionLog.SessionHeader): (events: ReadonlyArray<SessionLog.SessionEvent>) => string => {
  const streamed = new Streamed(header.version)
  return (events) => serializeEvents(events, streamed)
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** A line over `MAX_LINE_BYTES`: its 1-based number and size (it is not decoded). */
interface Oversized {
  readonly line: number
  readonly bytes: number
}

/**
 * Each line's text (`undefined` when it is not UTF-8), and whether the last one
 * ended with a newline; or the first line over `MAX_LINE_BYTES`.
 */
const linesOf = (
  bytes: Uint8Array,
): { readonly lines: Array<string | undefined>; readonly complete: boolean } | Oversized => {
  const lines: Array<string | undefined> = []
  let start = 0
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start)
    const last = end < 0
    if (last) end = bytes.length
    if (end - start > MAX_LINE_BYTES) return { line: lines.length + 1, bytes: end - start }
    try {
      lines.push(utf8.decode(bytes.subarray(start, end)))
    } catch {
      lines.push(undefined)
    }
    if (last) return { lines, complete: false }
    start = end + 1
  }
  return { lines, complete: true }
}

/**
 * Verifies a whole log file and returns its session; `file` names it in every
 * refusal (`<file>:<line>: …`, the header is line 1). A torn tail — the
 * unfinished write a crash leaves at the end of a log, which the JSONL layer
 * cuts when it opens the session — is refused here: the file is not the whole
 * session it claims to be.
 */
export const decode = (bytes: Uint8Array, file: string): Either.Either<Session, StoreError> => {
  const corrupt = (line: number, detail: string) => Either.left(new SessionCorrupt({ file, line, detail }))
  const split = linesOf(bytes)
  if ("bytes" in split) {
    return corrupt(
      split.line,
      `the line is ${split.bytes} bytes, more than the ${MAX_LINE_BYTES / MIB} MiB (${MAX_LINE_BYTES} bytes) one line of a session may take`,
    )
  }
  const { lines, complete } = split
  const tooDeep = (n: number) => corrupt(n, `the line nests objects and arrays more than ${MAX_DEPTH} levels deep (a store writes at most ${MAX_DEPTH})`)
  const first = lines[0]
  if (first === undefined && lines.length === 0) return corrupt(1, "the file is empty")
  if (lines.length === 1 && !complete) return corrupt(1, "the session header is incomplete")
  if (first === undefined) return corrupt(1, "the session header is not UTF-8 text")
  // parseHeader checks the id against the one a log's file name gives; an imported file's own id is what it claims.
  const claimed = Either.getOrUndefined(Either.try(() => (JSON.parse(first) as { readonly id?: unknown }).id))
  const header = parseHeader(first, file, typeof claimed === "string" ? claimed : "")
  if (Either.isLeft(header)) return Either.left(header.left)
  const { cwd, id } = header.right
  const notAnId = sessionIdProblem(id)
  if (notAnId !== undefined) return corrupt(1, `${quoted(id)} is not a session id (${notAnId})`)
  if (!isAbsolute(cwd)) return corrupt(1, `the session's cwd ${quoted(cwd)} is not an absolute path`)
  if (nestsDeeperThan(first, MAX_DEPTH)) return tooDeep(1)
  const events: Array<SessionLog.SessionEvent> = []
  const streamed = new Streamed(header.right.version)
  let damage: number | undefined
  for (let i = 1; i < lines.length; i++) {
    const n = i + 1
    const text = lines[i]
    const torn = i === lines.length - 1 && !complete
    if (text !== undefined && nestsDeeperThan(text, MAX_DEPTH)) return tooDeep(n)
    const result = text === undefined || torn
      ? { _tag: "Unparsable" as const }
      : damage !== undefined
      ? decodeAfterDamage(text)
      : decodeLine(text, streamed)
    if (damage !== undefined) {
      // The JSONL reader's rule: damage followed by a complete event was committed, not torn.
      if (result._tag === "Event") {
        return corrupt(
          damage,
          result.event.type === "turn/end"
            ? `unreadable line followed by a committed turn end (line ${n})`
            : `unreadable line followed by a complete event (seq ${result.event.seq}, line ${n})`,
        )
      }
      continue
    }
    switch (result._tag) {
      case "Event": {
        const expected = events.length + 1
        if (result.event.seq !== expected) return corrupt(n, `expected event seq ${expected}, found ${result.event.seq}`)
        events.push(result.event)
        break
      }
      case "Unparsable":
        damage = n
        break
      case "Unknown":
        return Either.left(new UnknownEvent({ file, line: n, type: result.type }))
      case "Invalid":
        return corrupt(n, result.detail)
    }
  }
  if (damage !== undefined) {
    return corrupt(damage, "the file ends in a torn tail (a write that never finished): it does not hold the whole session")
  }
  return Either.right({ header: header.right, events })
}
