/**
 * One session as the loop holds it in memory: where it runs, which model it
 * talks to, the next seq to write, and the events a request is derived from.
 * Raw chunks are written through it but not kept: they are evidence, not
 * history, and a long session would otherwise hold every delta twice.
 */
import { Chunk, Effect, Ref } from "effect"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import type { SessionStore, StoreError } from "@turnlog/store"

export interface Route {
  readonly provider: string
  readonly model: string
}

/** What the log holds so far, as far as the next write and the next request need it. */
export interface Written {
  readonly nextSeq: number
  readonly history: Chunk.Chunk<SessionLog.SessionEvent>
}

export interface Journal {
  readonly id: SessionId
  readonly cwd: string
  readonly route: Route
  /** Changed only by the writer of the one turn in flight, after the store accepted the events. */
  readonly written: Ref.Ref<Written>
}

const isHistory = (event: SessionLog.SessionEvent) => event.type !== "assistant/chunk"

export const make = (
  id: SessionId,
  cwd: string,
  route: Route,
  events: ReadonlyArray<SessionLog.SessionEvent>,
): Effect.Effect<Journal> => {
  const last = events[events.length - 1]
  return Effect.map(
    Ref.make<Written>({
      nextSeq: last === undefined ? 1 : last.seq + 1,
      history: Chunk.fromIterable(events.filter(isHistory)),
    }),
    (written) => ({ id, cwd, route, written }),
  )
}

/** The events a request is derived from. */
export const history = (journal: Journal): Effect.Effect<Chunk.Chunk<SessionLog.SessionEvent>> =>
  Effect.map(Ref.get(journal.written), (written) => written.history)

export interface Writer {
  /** Stamps and appends events (buffered by the store until `flush`). */
  readonly log: (inputs: ReadonlyArray<SessionLog.EventInput>) => Effect.Effect<void, StoreError.StoreError>
  readonly flush: Effect.Effect<void, StoreError.StoreError>
}

export const writer = (store: SessionStore.Service, journal: Journal): Writer => ({
  log: (inputs) =>
    Effect.flatMap(Ref.get(journal.written), ({ nextSeq }) => {
      const events = SessionLog.stamp(nextSeq, inputs)
      return Effect.zipRight(
        store.append(journal.id, events),
        Ref.update(journal.written, (written) => ({
          nextSeq: written.nextSeq + events.length,
          history: Chunk.appendAll(written.history, Chunk.fromIterable(events.filter(isHistory))),
        })),
      )
      // Appended and counted together: an append the store took is never left out of the next seq.
    }).pipe(Effect.uninterruptible),
  flush: store.flush(journal.id),
})
