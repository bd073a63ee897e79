/**
 * The JSONL layer's index of sessions: `<home>/index/<id>.json`, one small
 * file per session holding what `list` shows of it (the header's cwd, creation
 * time and title, the turn count, the last event's time and seq, whether the
 * last turn is open) and a stamp of the log it was taken from (inode, size,
 * modification and change times). `list` trusts an entry only while the log's
 * stamp is exactly the one recorded: any append, cut or edit of the log
 * changes its size or its change time (which no program can set back), so a
 * stale entry is detected and the log is read instead. The index never wins
 * over the log: deleting it, or any entry of it, only costs a re-read.
 *
 * The index lives beside `sessions/`, not in it, so nothing is ever made
 * beside a log (a damaged one least of all). An entry is rewritten in place
 * (one write from its start, then cut to its length), never synced — the
 * writer of a session keeps its entry open and rewrites it on every flush, a
 * write and no directory change — and ends with a checksum of the text
 * before it: a partial entry (a crash, a reader meeting a rewrite, two
 * processes rewriting it at once) fails to decode or its checksum, and is
 * rebuilt. Losing one loses nothing but the time to rebuild it.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, type Stats, statSync } from "node:fs"
import { sep } from "node:path"
import { Schema } from "effect"
import type { SessionLog } from "@turnlog/protocol"
import type { SessionSummary } from "../SessionStore.js"
import { statusOf, type Tally } from "../Summary.js"
import { type FileIo, writeAll } from "./FileIo.js"
import { compileGuard } from "./tuned/Guard.js"

/** What identifies one state of a log file. */
const Stamp = Schema.Struct({
  ino: Schema.Number,
  size: Schema.Number,
  mtimeMs: Schema.Number,
  ctimeMs: Schema.Number,
})
export type Stamp = typeof Stamp.Type

const Entry = Schema.Struct({
  version: Schema.Literal(1),
  id: Schema.String,
  cwd: Schema.String,
  createdAt: Schema.String,
  title: Schema.optional(Schema.String),
  turns: Schema.Number,
  updatedAt: Schema.optional(Schema.String),
  openTurn: Schema.Boolean,
  lastSeq: Schema.Number,
  log: Stamp,
  /** FNV-1a of the entry's text before it; an older build's entry (written by rename) has none. */
  check: Schema.optional(Schema.String),
})
export type Entry = typeof Entry.Type

/** Whether a parsed value is an entry: the schema compiled to a predicate, as a log's lines are checked (`list` reads one per session). */
const isEntry = compileGuard(Entry as Schema.Schema<unknown>)

const decodeEntry = (text: string): Entry | undefined => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  return isEntry(value) ? value as Entry : undefined
}

const stampFrom = (stat: Stats): Stamp => ({ ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs })

/** The stamp of an open log. */
export const stampOf = (fd: number): Stamp => stampFrom(fstatSync(fd))

/**
 * The stamp of the log at `file` when it is a regular file; undefined when it
 * is not one, is gone, or cannot be looked at (then the log is opened, and
 * what is wrong with it said, as without an index).
 */
export const stampAt = (file: string): Stamp | undefined => {
  try {
    const stat = statSync(file, { throwIfNoEntry: false })
    return stat?.isFile() === true ? stampFrom(stat) : undefined
  } catch {
    return undefined
  }
}

export const sameStamp = (a: Stamp, b: Stamp): boolean => a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs

/** FNV-1a (32 bits) of `text`, as 8 hex digits. */
const fnv1a = (text: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return (hash >>> 0).toString(16).padStart(8, "0")
}

const CHECK = `,"check":"`

/** The entry's text: its JSON with the checksum of what precedes it as the last key, and a newline. */
const textOf = (entry: Entry): string => {
  const { check: _, ...fields } = entry
  const json = JSON.stringify(fields)
  const body = json.slice(0, -1)
  return `${body}${CHECK}${fnv1a(body)}"}\n`
}

/** Whether an entry's text is whole: no checksum (an older build's), or the one of the text before it. */
const intact = (text: string, entry: Entry): boolean => {
  if (entry.check === undefined) return true
  const at = text.lastIndexOf(CHECK)
  return at >= 0 && fnv1a(text.slice(0, at)) === entry.check
}

export const entryOf = (header: SessionLog.SessionHeader, tally: Tally, log: Stamp): Entry => ({
  version: 1,
  id: header.id,
  cwd: header.cwd,
  createdAt: header.createdAt,
  ...(tally.title !== undefined ? { title: tally.title } : {}),
  turns: tally.turns,
  ...(tally.updatedAt !== undefined ? { updatedAt: tally.updatedAt } : {}),
  openTurn: tally.openTurn,
  lastSeq: tally.lastSeq,
  log,
})

/** The summary an entry records; undefined for a session without events (not listed). */
export const summaryOf = (entry: Entry): SessionSummary | undefined =>
  entry.updatedAt === undefined ? undefined : {
    id: entry.id as SessionSummary["id"],
    cwd: entry.cwd,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    turns: entry.turns,
    title: entry.title ?? "",
    status: statusOf(entry.openTurn),
  }

export const tallyOf = (entry: Entry): Tally => ({
  turns: entry.turns,
  ...(entry.updatedAt !== undefined ? { updatedAt: entry.updatedAt } : {}),
  ...(entry.title !== undefined ? { title: entry.title } : {}),
  openTurn: entry.openTurn,
  lastSeq: entry.lastSeq,
})

// A session id is one file name (`isSessionId`), and `indexDir` a joined path: nothing to normalize.
export const entryFile = (indexDir: string, id: string): string => `${indexDir}${sep}${id}.json`

/** An entry is a few hundred bytes: one buffer serves every read of `list`, which reads one per session. */
const ENTRY_BYTES = 16 * 1024
let scratch: Buffer | undefined

/** The text of the file at `file`, or undefined when it cannot be read (none, a directory, a FIFO). */
const readText = (file: string): string | undefined => {
  let fd: number
  try {
    // Non-blocking: a FIFO put where an entry should be is no entry, not a wait.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    const buffer = (scratch ??= Buffer.allocUnsafe(ENTRY_BYTES))
    const n = readSync(fd, buffer, 0, ENTRY_BYTES, 0)
    // A larger one (a cwd thousands of characters long) is read whole.
    return n < ENTRY_BYTES ? buffer.toString("utf8", 0, n) : readFileSync(fd, "utf8")
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/**
 * The entry of session `id` if there is one that decodes and names it.
 * Anything else (none, unreadable, damaged) is no entry: the log is read.
 */
export const readEntry = (indexDir: string, id: string): Entry | undefined => {
  const text = readText(entryFile(indexDir, id))
  if (text === undefined) return undefined
  const entry = decodeEntry(text)
  return entry !== undefined && entry.id === id && intact(text, entry) ? entry : undefined
}

// Non-blocking: a FIFO put where an entry should be fails the write (a cache missed) rather than waiting for a reader.
const OPEN_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK

/** Rewrites the entry open at `fd` with `entry`: one write from the start, then cut to its length. */
const rewrite = (io: FileIo, fd: number, entry: Entry): void => {
  const bytes = Buffer.from(textOf(entry))
  writeAll(io, fd, bytes, 0)
  io.ftruncateSync(fd, bytes.length)
}

/** Replaces the entry of `entry.id` (see the header: in place, checksummed). */
export const writeEntry = (io: FileIo, indexDir: string, entry: Entry): void => {
  const fd = io.openSync(entryFile(indexDir, entry.id), OPEN_FLAGS, 0o644)
  try {
    rewrite(io, fd, entry)
  } finally {
    io.closeSync(fd)
  }
}

/**
 * The entry of one session as its writer keeps it: open from the first
 * rewrite until `close`, opened again when it was removed meanwhile (an
 * index deleted by hand), so each flush costs one write.
 */
export class EntryWriter {
  private fd: number | undefined
  constructor(private readonly io: FileIo, private readonly indexDir: string, private readonly id: string) {}

  write(entry: Entry): void {
    if (this.fd !== undefined && this.io.fstatSync(this.fd).nlink === 0) this.close()
    this.fd ??= this.io.openSync(entryFile(this.indexDir, this.id), OPEN_FLAGS, 0o644)
    rewrite(this.io, this.fd, entry)
  }

  close(): void {
    if (this.fd === undefined) return
    try {
      this.io.closeSync(this.fd)
    } catch {
      // Nothing to lose: the entry is a cache.
    }
    this.fd = undefined
  }
}
