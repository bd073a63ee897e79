/**
 * `session/list` from the store's list: the sessions with events, most
 * recently updated first, titled, optionally only those of one cwd, in pages
 * whose cursor is opaque to the client (the offset of the next page).
 *
 * The protocol's session info has no place for a session's turns or status,
 * so they go in its `_meta` under `turnlog`: `{ turns, status }`, the status
 * one of `idle`, `running` (a live process holds the session mid-turn) or
 * `interrupted` (a turn was cut off; the next open closes it).
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Either } from "effect"
import type { SessionStore } from "@turnlog/store"

export const PAGE_SIZE = 50

const CURSOR_PREFIX = "offset:"

const cursorOf = (offset: number): string => Buffer.from(`${CURSOR_PREFIX}${offset}`).toString("base64url")

const offsetOf = (cursor: string): number | undefined => {
  const text = Buffer.from(cursor, "base64url").toString("utf8")
  if (!text.startsWith(CURSOR_PREFIX)) return undefined
  const offset = Number(text.slice(CURSOR_PREFIX.length))
  return Number.isSafeInteger(offset) && offset >= 0 ? offset : undefined
}

export const page = (
  sessions: ReadonlyArray<SessionStore.SessionSummary>,
  request: acp.ListSessionsRequest,
  size: number = PAGE_SIZE,
): Either.Either<acp.ListSessionsResponse, string> => {
  const offset = request.cursor === undefined || request.cursor === null ? 0 : offsetOf(request.cursor)
  if (offset === undefined) return Either.left(`cursor "${request.cursor}" is not one this agent gave`)
  const cwd = request.cwd ?? undefined
  const matching = cwd === undefined ? sessions : sessions.filter((s) => s.cwd === cwd)
  const shown = matching.slice(offset, offset + size).map((s): acp.SessionInfo => ({
    sessionId: s.id,
    cwd: s.cwd,
    ...(s.title === "" ? {} : { title: s.title }),
    updatedAt: s.updatedAt,
    _meta: { turnlog: { turns: s.turns, status: s.status } },
  }))
  const next = offset + size
  return Either.right({ sessions: shown, ...(next < matching.length ? { nextCursor: cursorOf(next) } : {}) })
}
