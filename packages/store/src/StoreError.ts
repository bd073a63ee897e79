/**
 * What can go wrong with a durable session, each naming what and where.
 * Damaged or unknown data is refused with one of these, never skipped.
 */
import { Data } from "effect"

export class SessionNotFound extends Data.TaggedError("SessionNotFound")<{
  readonly sessionId: string
}> {
  override get message() {
    return `session ${this.sessionId} not found`
  }
}

/** The process holding a session's lease: the machine it runs on, its pid there, and the program when it said. */
export interface Holder {
  readonly host: string
  readonly pid: number
  /**
   * The program holding it, as it names itself (`turnlog acp`, the agent an
   * editor runs); absent from leases written without one (and by older builds).
   */
  readonly program?: string
}

/** The program an editor runs: a session it holds is "open in an editor". */
export const EDITOR_PROGRAM = "turnlog acp"

export class SessionLocked extends Data.TaggedError("SessionLocked")<{
  readonly sessionId: string
  readonly holder: Holder
}> {
  override get message() {
    const { host, pid, program } = this.holder
    if (program === undefined) return `session ${this.sessionId} is open for writing on host ${host} by process ${pid}`
    return program === EDITOR_PROGRAM
      ? `session ${this.sessionId} is open in an editor (${program}, pid ${pid}) on host ${host}`
      : `session ${this.sessionId} is open for writing by ${program} (pid ${pid}) on host ${host}`
  }
}

/**
 * This store's lease of a session is gone (its database connection ended, or a
 * write got no answer): it stops writing the session and never writes under
 * that lease again. What the last write left is settled by the next open,
 * which reads what is stored.
 */
export class LeaseLost extends Data.TaggedError("LeaseLost")<{
  readonly sessionId: string
  readonly reason: string
}> {
  override get message() {
    return `session ${this.sessionId}: this process lost its lease (${this.reason}); it no longer writes the session — open it again to continue from what is stored`
  }
}

export class StaleWriter extends Data.TaggedError("StaleWriter")<{
  readonly sessionId: string
  readonly expectedSeq: number
  readonly gotSeq: number
}> {
  override get message() {
    return `session ${this.sessionId}: expected event seq ${this.expectedSeq}, got ${this.gotSeq} (another writer or a gap)`
  }
}

/**
 * Where damaged or unknown data is. In a JSONL log: the file and its 1-based
 * line (the header is line 1). In the SQLite database: the database file, the
 * `sessionId` and the event's seq as `line`.
 */
const where = (e: { readonly file: string; readonly line: number; readonly sessionId?: string }) =>
  e.sessionId === undefined ? `${e.file}:${e.line}` : `${e.file}: session ${e.sessionId}, event ${e.line}`

export class SessionCorrupt extends Data.TaggedError("SessionCorrupt")<{
  readonly file: string
  readonly line: number
  readonly detail: string
  readonly sessionId?: string
}> {
  override get message() {
    return `${where(this)}: ${this.detail}`
  }
}

export class UnsupportedVersion extends Data.TaggedError("UnsupportedVersion")<{
  readonly file: string
  readonly found: number
  readonly supported: number
  /** What is versioned: a session log (the default) or a database's schema. */
  readonly subject?: "log" | "database schema"
}> {
  override get message() {
    return `${this.file}: ${this.subject ?? "log"} version ${this.found} was written by a newer turnlog (this build reads version ${this.supported})`
  }
}

export class UnknownEvent extends Data.TaggedError("UnknownEvent")<{
  readonly file: string
  readonly line: number
  readonly type: string
  readonly sessionId?: string
}> {
  override get message() {
    return `${where(this)}: unknown event type "${this.type}" (written by a newer turnlog?)`
  }
}

/** An operating-system or database failure, mapped once where it enters. */
export class StoreIOError extends Data.TaggedError("StoreIOError")<{
  readonly path: string
  readonly operation: string
  readonly cause: unknown
}> {
  override get message() {
    return `${this.operation} ${this.path}: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

export type StoreError =
  | SessionNotFound
  | SessionLocked
  | LeaseLost
  | StaleWriter
  | SessionCorrupt
  | UnsupportedVersion
  | UnknownEvent
  | StoreIOError
