/**
 * One session as the loop holds it in memory: where it runs, which model it
 * talks to, the log version it is written in, the next seq to write, and the
 * events a request is derived from. Raw chunks are written through it but not
 * kept: they are evidence, not history, and a long session would otherwise
 * hold every delta twice.
 *
 * Raw chunks of a version-2 session are batched: the writer holds the chunks
 * streamed since its last event and logs them as one `assistant/chunks` event
 * before any other event, before every flush, every `BATCH_LIMIT` chunks, and
 * when the turn ends however it ends (`close`). So everything streamed before
 * a request is flushed before it starts, as when each chunk was its own event,
 * and a crash loses at most what was not flushed. In a version-3 session a
 * block that streamed over several batches of a request ends by reference to
 * them (`block-end-streamed`), not with its whole text again: the writer
 * carries the request's tracker from batch to batch, advanced only by a batch
 * the store took. A version-2 session's batches stand alone. A version-1 session keeps
 * one `assistant/chunk` event per chunk, so the build that made it still
 * reads it.
 */
import { Chunk, Effect, Ref } from "effect"
import { ChunkBatch, type Route, type SessionId, SessionLog, type StreamChunk } from "@turnlog/protocol"
import type { SessionStore, StoreError } from "@turnlog/store"

/** What the log holds so far, as far as the next write and the next request need it. */
export interface Written {
  readonly nextSeq: number
  readonly history: Chunk.Chunk<SessionLog.SessionEvent>
}

export interface Journal {
  readonly id: SessionId
  readonly cwd: string
  readonly route: Route
  /** The log version the session's header names: how its raw chunks are written. */
  readonly version: number
  /** Changed only by the writer of the one turn in flight, after the store accepted the events. */
  readonly written: Ref.Ref<Written>
}

const isHistory = (event: SessionLog.SessionEvent) => !SessionLog.isRawChunk(event.type)

/** The most raw chunks one batch holds: a long response is written in pieces of a bounded size. */
export const BATCH_LIMIT = 512

export const make = (
  id: SessionId,
  cwd: string,
  route: Route,
  events: ReadonlyArray<SessionLog.SessionEvent>,
  version: number = SessionLog.LOG_VERSION,
): Effect.Effect<Journal> => {
  const last = events[events.length - 1]
  return Effect.map(
    Ref.make<Written>({
      nextSeq: last === undefined ? 1 : last.seq + 1,
      history: Chunk.fromIterable(events.filter(isHistory)),
    }),
    (written) => ({ id, cwd, route, version, written }),
  )
}

/** The events a request is derived from. */
export const history = (journal: Journal): Effect.Effect<Chunk.Chunk<SessionLog.SessionEvent>> =>
  Effect.map(Ref.get(journal.written), (written) => written.history)

export interface Writer {
  /** Stamps and appends events (buffered by the store until `flush`), after the raw chunks held so far. */
  readonly log: (inputs: ReadonlyArray<SessionLog.EventInput>) => Effect.Effect<void, StoreError.StoreError>
  /** Writes one raw chunk: held for the next batch (version 2) or appended as its own event (version 1). */
  readonly chunk: (chunk: StreamChunk) => Effect.Effect<void, StoreError.StoreError>
  /** Appends the raw chunks held so far, then makes everything appended durable. */
  readonly flush: Effect.Effect<void, StoreError.StoreError>
  /** Appends the raw chunks held so far, if any: the turn is over, however it ended. */
  readonly close: Effect.Effect<void, StoreError.StoreError>
}

const startsRequest = (inputs: ReadonlyArray<SessionLog.EventInput>) => inputs.some((input) => input.type === "request/start")

export const writer = (store: SessionStore.Service, journal: Journal): Writer => {
  const batched = journal.version > SessionLog.UNBATCHED_VERSION
  const streamedEnds = journal.version >= SessionLog.STREAMED_END_VERSION
  let held: Array<StreamChunk> = []
  // What the request's batches so far assemble (version 3): a new request starts a new one.
  let request = new ChunkBatch.Tracker()

  const append = (inputs: ReadonlyArray<SessionLog.EventInput>) =>
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
    }).pipe(Effect.uninterruptible)

  /** The held chunks as the batch that goes before `inputs`; they stay held until the store took them. */
  const withBatch = (inputs: ReadonlyArray<SessionLog.EventInput>) => {
    if (held.length === 0) {
      if (inputs.length === 0) return Effect.void
      return Effect.tap(append(inputs), () =>
        Effect.sync(() => {
          if (startsRequest(inputs)) request = new ChunkBatch.Tracker()
        }))
    }
    const batch = held
    // Advanced on a copy: a write the store refused is encoded again from the same state.
    const next = streamedEnds ? request.clone() : undefined
    return Effect.tap(append([SessionLog.batchOf(batch, next), ...inputs]), () =>
      Effect.sync(() => {
        held = held.length === batch.length ? [] : held.slice(batch.length)
        if (next !== undefined) request = next
        if (startsRequest(inputs)) request = new ChunkBatch.Tracker()
      }))
  }

  const close = Effect.suspend(() => withBatch([]))
  return {
    log: (inputs) => Effect.suspend(() => withBatch(inputs)),
    chunk: (chunk) =>
      Effect.suspend(() => {
        if (!batched) return append([{ type: "assistant/chunk", data: { chunk } }])
        held.push(chunk)
        return held.length >= BATCH_LIMIT ? close : Effect.void
      }),
    flush: Effect.zipRight(close, store.flush(journal.id)),
    close,
  }
}
