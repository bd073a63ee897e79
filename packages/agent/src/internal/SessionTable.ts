/**
 * The sessions the agent loop holds, as one immutable value behind the loop's
 * `SynchronizedRef`: each session's journal and turn in flight, the sessions
 * made but not yet written, and the tools of sessions that have their own.
 */
import { type Deferred, HashMap, Option } from "effect"
import type { Route, SessionId } from "@turnlog/protocol"
import type * as Journal from "./Journal.js"
import { extend, type Service as Registry, type Tool } from "../Tools.js"

/** The turn in flight: its cancel signal, and done once it closed itself. */
export interface TurnHandle {
  readonly cancel: Deferred.Deferred<void>
  readonly done: Deferred.Deferred<void>
}

export interface Session {
  readonly journal: Journal.Journal
  readonly turn: Option.Option<TurnHandle>
}

/** The sessions this process holds, and those it created that no turn has completed in yet. */
export interface Table {
  readonly sessions: HashMap.HashMap<SessionId, Session>
  /**
   * If the store lets go of an unwritten session (its first write failed), its
   * id — which the client holds — is taken again for a new, empty session.
   */
  readonly unwritten: HashMap.HashMap<SessionId, { readonly cwd: string; readonly route: Route }>
  /** The registry of a session that has tools of its own; kept when a failed turn lets the session go, not when `release` does. */
  readonly tools: HashMap.HashMap<SessionId, Registry>
}

export const withSession = (table: Table, id: SessionId, session: Session): Table => ({
  ...table,
  sessions: HashMap.set(table.sessions, id, session),
})

export const empty: Table = { sessions: HashMap.empty(), unwritten: HashMap.empty(), tools: HashMap.empty() }

/** The table with `own` as the session's tools over `base` (none given: as it was; none at all: the registry's). */
export const withTools = (t: Table, base: Registry, id: SessionId, own: ReadonlyArray<Tool> | undefined): Table =>
  own === undefined
    ? t
    : { ...t, tools: own.length === 0 ? HashMap.remove(t.tools, id) : HashMap.set(t.tools, id, extend(base, own)) }

/** The table without the session's journal and tools: what letting it go leaves. */
export const without = (t: Table, id: SessionId): Table => ({
  ...t,
  sessions: HashMap.remove(t.sessions, id),
  tools: HashMap.remove(t.tools, id),
})

/** The session is free again, if it still holds `turn`. */
export const free = (t: Table, id: SessionId, turn: TurnHandle): Table => {
  const session = HashMap.get(t.sessions, id)
  return Option.isSome(session) && Option.contains(session.value.turn, turn)
    ? withSession(t, id, { ...session.value, turn: Option.none() })
    : t
}
