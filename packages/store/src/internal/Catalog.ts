/**
 * `list` in the database layers, shared so the two cannot drift apart. A
 * database keeps a catalog row per session (the header, the turn count, the
 * first user message's title) in the same transaction as the events it counts,
 * so `list` reads the catalog, not the events: its cost follows the number of
 * sessions, not their size. A row the layer cannot vouch for (written before
 * the catalog was kept, or behind its events) is summarised by loading the
 * session, the pass `read` makes, which also names a damaged one.
 */
import { Effect, Either } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import type { SessionList, SessionSummary, Unreadable } from "../SessionStore.js"
import type { StoreError } from "../StoreError.js"
import { statusOf, summarize } from "../Summary.js"

/** What a catalog row says of a session beside its header. */
export interface Counted {
  /** The time of the session's last event; null when it has none (it is not listed). */
  readonly updatedAt: string | null
  readonly turns: number
  /** The title of the first user message, if any. */
  readonly firstMessage: string | null
  /** Whether the last turn has no `turn/end`. */
  readonly openTurn: boolean
}

/** The summary a catalog row gives, the same as `Summary.summarize` over the session's events. */
export const fromCatalog = (header: SessionLog.SessionHeader, counted: Counted): SessionSummary | undefined =>
  counted.updatedAt === null ? undefined : {
    id: header.id,
    cwd: header.cwd,
    createdAt: header.createdAt,
    updatedAt: counted.updatedAt,
    turns: counted.turns,
    title: header.title ?? counted.firstMessage ?? "",
    status: statusOf(counted.openTurn),
  }

/** One catalog row judged: its summary (undefined: not listed), or why it cannot be read, or to be loaded. */
export type Judged =
  | { readonly _tag: "Listed"; readonly summary: SessionSummary | undefined }
  | { readonly _tag: "Unreadable"; readonly error: StoreError }
  | { readonly _tag: "Load" }

/**
 * The list of sessions from judged catalog rows; each row to be loaded is
 * judged by `load`, as `read` would: a session `read` refuses is named with
 * the same reason, one whose events are gone is not listed.
 */
export const listCatalog = <R>(
  rows: ReadonlyArray<{ readonly id: SessionId; readonly judged: Judged }>,
  load: (id: SessionId) => Effect.Effect<{ readonly header: SessionLog.SessionHeader; readonly events: ReadonlyArray<SessionLog.SessionEvent> }, StoreError, R>,
): Effect.Effect<SessionList, never, R> =>
  Effect.gen(function*() {
    const sessions: Array<SessionSummary> = []
    const unreadable: Array<Unreadable> = []
    for (const { id, judged } of rows) {
      if (judged._tag === "Unreadable") {
        unreadable.push({ id, error: judged.error })
        continue
      }
      let summary = judged._tag === "Listed" ? judged.summary : undefined
      if (judged._tag === "Load") {
        const loaded = yield* Effect.either(load(id))
        if (Either.isLeft(loaded)) {
          if (loaded.left._tag !== "SessionNotFound") unreadable.push({ id, error: loaded.left })
          continue
        }
        summary = summarize(loaded.right.header, loaded.right.events)
      }
      if (summary !== undefined) sessions.push(summary)
    }
    return { sessions, unreadable }
  })
