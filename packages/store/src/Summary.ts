/**
 * What `list` shows of a session, computed the same way by every layer: the
 * number of turns, the time of the last event, and a title (the one given at
 * create, else the start of the first user message).
 */
import type { SessionLog } from "@turnlog/protocol"
import type { SessionSummary } from "./SessionStore.js"

/** Titles are cut to this many characters (an ellipsis marks the cut). */
export const TITLE_LENGTH = 60

/** Text read at a time while a title is gathered. */
const TITLE_SLICE = 4096

/**
 * The start of a user message's text, whitespace collapsed, cut to
 * `TITLE_LENGTH` characters: `titleOfText` of its text blocks joined by a
 * space, read only as far as the title needs (a message of any size gives
 * its title without being copied whole).
 */
export const titleOf = (message: SessionLog.EventOf<"user/message">["data"]["message"]): string => {
  // Whitespace collapsed so far, leading whitespace dropped: short whatever was read.
  let seen = ""
  let first = true
  for (const block of message.content) {
    if (block.type !== "text") continue
    // The space that joins this block's text to the one before.
    if (!first) seen += " "
    first = false
    const text = block.text
    for (let at = 0; at < text.length; at += TITLE_SLICE) {
      seen = (seen + text.slice(at, at + TITLE_SLICE)).replace(/\s+/g, " ").trimStart()
      // What is seen without trailing space starts the whole title: once it is too long, so is the title.
      const chars = Array.from(seen.trimEnd())
      if (chars.length > TITLE_LENGTH) return `${chars.slice(0, TITLE_LENGTH - 1).join("").trimEnd()}…`
    }
  }
  return titleOfText(seen)
}

/** The reference form of a title: `text` with whitespace collapsed, cut to `TITLE_LENGTH` characters (an ellipsis marks the cut). */
export const titleOfText = (whole: string): string => {
  const text = whole.replace(/\s+/g, " ").trim()
  const chars = Array.from(text)
  return chars.length <= TITLE_LENGTH ? text : `${chars.slice(0, TITLE_LENGTH - 1).join("").trimEnd()}…`
}

/**
 * What a summary is built from so far, as plain data: the index keeps it so a
 * writer can carry a summary forward from where it was written.
 */
export interface Tally {
  readonly turns: number
  readonly updatedAt?: string
  readonly title?: string
  /** Whether the last turn has no `turn/end` yet. */
  readonly openTurn: boolean
  /** The seq of the last event folded in (0: none). */
  readonly lastSeq: number
}

/** The number of turns started among `events`. */
export const turnsIn = (events: ReadonlyArray<SessionLog.SessionEvent>): number => events.reduce((n, event) => (event.type === "turn/start" ? n + 1 : n), 0)

/** The title the first user message among `events` gives, if any. */
export const firstTitle = (events: ReadonlyArray<SessionLog.SessionEvent>): string | null => {
  for (const event of events) if (event.type === "user/message") return titleOf(event.data.message)
  return null
}

/**
 * The status a layer's summary gives: whether the last turn is open is all a
 * layer knows of it; `list` asks who holds a session whose turn is open,
 * which makes it `running` (see `SessionStatus`).
 */
export const statusOf = (openTurn: boolean): SessionSummary["status"] => (openTurn ? "interrupted" : "idle")

/** Folds events one at a time, so a large log is summarised without holding it. */
export class SummaryBuilder {
  private turns = 0
  private updatedAt: string | undefined
  private title: string | undefined
  private open = false
  private seq = 0

  constructor(private readonly header: SessionLog.SessionHeader, from?: Tally) {
    this.title = header.title
    if (from !== undefined) {
      this.turns = from.turns
      this.updatedAt = from.updatedAt
      this.title = from.title ?? header.title
      this.open = from.openTurn
      this.seq = from.lastSeq
    }
  }

  /** Whether the title is still unknown (the caller must pass the first `user/message` fully decoded). */
  get needsTitle(): boolean {
    return this.title === undefined
  }

  add(type: string, time: string, seq: number): void {
    if (type === "turn/start") {
      this.turns++
      this.open = true
    } else if (type === "turn/end") {
      this.open = false
    }
    this.updatedAt = time
    this.seq = seq
  }

  /** Folds one decoded event, title included. */
  addEvent(event: SessionLog.SessionEvent): void {
    this.add(event.type, event.time, event.seq)
    if (event.type === "user/message") this.addTitle(event)
  }

  tally(): Tally {
    return {
      turns: this.turns,
      ...(this.updatedAt !== undefined ? { updatedAt: this.updatedAt } : {}),
      ...(this.title !== undefined ? { title: this.title } : {}),
      openTurn: this.open,
      lastSeq: this.seq,
    }
  }

  addTitle(event: SessionLog.EventOf<"user/message">): void {
    if (this.title === undefined) this.title = titleOf(event.data.message)
  }

  /** The summary, or undefined for a session without events. */
  result(): SessionSummary | undefined {
    if (this.updatedAt === undefined) return undefined
    return {
      id: this.header.id,
      cwd: this.header.cwd,
      createdAt: this.header.createdAt,
      updatedAt: this.updatedAt,
      turns: this.turns,
      title: this.title ?? "",
      status: statusOf(this.open),
    }
  }
}

export const summarize = (
  header: SessionLog.SessionHeader,
  events: Iterable<SessionLog.SessionEvent>,
): SessionSummary | undefined => {
  const builder = new SummaryBuilder(header)
  for (const event of events) builder.addEvent(event)
  return builder.result()
}

/** Most recently updated first; ties by newest creation, then id. */
export const byRecency = (a: SessionSummary, b: SessionSummary): number =>
  a.updatedAt !== b.updatedAt
    ? (a.updatedAt < b.updatedAt ? 1 : -1)
    : a.createdAt !== b.createdAt
    ? (a.createdAt < b.createdAt ? 1 : -1)
    : (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
