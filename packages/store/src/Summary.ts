/**
 * What `list` shows of a session, computed the same way by every layer: the
 * number of turns, the time of the last event, and a title (the one given at
 * create, else the start of the first user message).
 */
import type { SessionLog } from "@turnlog/protocol"
import type { SessionSummary } from "./SessionStore.js"

/** Titles are cut to this many characters (an ellipsis marks the cut). */
export const TITLE_LENGTH = 60

/** The start of a user message's text, whitespace collapsed, cut to `TITLE_LENGTH`. */
export const titleOf = (message: SessionLog.EventOf<"user/message">["data"]["message"]): string => {
  const text = message.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim()
  const chars = Array.from(text)
  return chars.length <= TITLE_LENGTH ? text : `${chars.slice(0, TITLE_LENGTH - 1).join("").trimEnd()}…`
}

/** Folds events one at a time, so a large log is summarised without holding it. */
export class SummaryBuilder {
  private turns = 0
  private updatedAt: string | undefined
  private title: string | undefined

  constructor(private readonly header: SessionLog.SessionHeader) {
    this.title = header.title
  }

  /** Whether the title is still unknown (the caller must pass the first `user/message` fully decoded). */
  get needsTitle(): boolean {
    return this.title === undefined
  }

  add(type: string, time: string): void {
    if (type === "turn/start") this.turns++
    this.updatedAt = time
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
    }
  }
}

export const summarize = (
  header: SessionLog.SessionHeader,
  events: Iterable<SessionLog.SessionEvent>,
): SessionSummary | undefined => {
  const builder = new SummaryBuilder(header)
  for (const event of events) {
    builder.add(event.type, event.time)
    if (event.type === "user/message") builder.addTitle(event)
  }
  return builder.result()
}

/** Most recently updated first; ties by newest creation, then id. */
export const byRecency = (a: SessionSummary, b: SessionSummary): number =>
  a.updatedAt !== b.updatedAt
    ? (a.updatedAt < b.updatedAt ? 1 : -1)
    : a.createdAt !== b.createdAt
    ? (a.createdAt < b.createdAt ? 1 : -1)
    : (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
