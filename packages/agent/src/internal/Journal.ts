/**
 * One session as the loop holds it in memory: where it runs, which model it
 * talks to, the next seq to write, and the events a request is derived from.
 * Raw chunks are written through it but not kept: they are evidence, not
 * history, and a long session would otherwise hold every delta twice.
 */
import { Effect } from "effect"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import type { SessionStore, StoreError } from "@turnlog/store"

export interface Route {
  readonly provider: string
  readonly model: string
}

export interface Journal {
  readonly id: SessionId
  readonly cwd: string
  readonly route: Route
  /** Mutated only by the one turn in flight, after the store accepted the events. */
  nextSeq: number
  readonly history: Array<SessionLog.SessionEvent>
}

export const make = (
  id: SessionId,
  cwd: string,
  route: Route,
  events: ReadonlyArray<SessionLog.SessionEvent>,
): Journal => {
  const last = events[events.length - 1]
  return {
    id,
    cwd,
    route,
    nextSeq: last === undefined ? 1 : last.seq + 1,
    history: events.filter((e) => e.type !== "assistant/chunk"),
  }
}

export interface Writer {
  /** Stamps and appends events (buffered by the store until `flush`). */
  readonly log: (inputs: ReadonlyArray<SessionLog.EventInput>) => Effect.Effect<void, StoreError.StoreError>
  readonly flush: Effect.Effect<void, StoreError.StoreError>
}

export const writer = (store: SessionStore.Service, journal: Journal): Writer => ({
  log: (inputs) =>
    Effect.suspend(() => {
      const events = SessionLog.stamp(journal.nextSeq, inputs)
      return Effect.map(store.append(journal.id, events), () => {
        journal.nextSeq += events.length
        for (const event of events) {
          if (event.type !== "assistant/chunk") journal.history.push(event)
        }
      })
    }),
  flush: store.flush(journal.id),
})
