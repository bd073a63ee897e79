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
 * beside a log (a damaged one least of all). An entry is written under a
 * temporary name and renamed into place, never synced: losing one to a crash
 * loses nothing but the time to rebuild it, and a partial one fails to
 * decode or to match, and is rebuilt.
 */
import { randomUUID } from "node:crypto"
import { fstatSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Either, Schema } from "effect"
import type { SessionLog } from "@turnlog/protocol"
import type { SessionSummary } from "../SessionStore.js"
import { statusOf, type Tally } from "../Summary.js"
import { type FileIo, writeAll } from "./FileIo.js"

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
})
export type Entry = typeof Entry.Type

const decodeEntry = Schema.decodeUnknownEither(Schema.parseJson(Entry))

/** The stamp of an open log. */
export const stampOf = (fd: number): Stamp => {
  const stat = fstatSync(fd)
  return { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs }
}

export const sameStamp = (a: Stamp, b: Stamp): boolean =>
  a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs

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

export const entryFile = (indexDir: string, id: string): string => join(indexDir, `${id}.json`)

/**
 * The entry of session `id` if there is one that decodes and names it.
 * Anything else (none, unreadable, damaged) is no entry: the log is read.
 */
export const readEntry = (indexDir: string, id: string): Entry | undefined => {
  let text: string
  try {
    text = readFileSync(entryFile(indexDir, id), "utf8")
  } catch {
    return undefined
  }
  const entry = decodeEntry(text)
  return Either.isRight(entry) && entry.right.id === id ? entry.right : undefined
}

/** Replaces the entry of `entry.id` whole (a temporary file renamed into place). */
export const writeEntry = (io: FileIo, indexDir: string, entry: Entry): void => {
  const temp = join(indexDir, `.${entry.id}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`)
  const fd = io.openSync(temp, "wx")
  try {
    try {
      writeAll(io, fd, Buffer.from(JSON.stringify(entry) + "\n"))
    } finally {
      io.closeSync(fd)
    }
    io.renameSync(temp, entryFile(indexDir, entry.id))
  } catch (error) {
    try {
      io.unlinkSync(temp)
    } catch {
      // Never made, or already renamed.
    }
    throw error
  }
}
