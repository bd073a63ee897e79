/**
 * The streaming reads every layer shares: `stream` (what is stored now, a page
 * at a time), `follow` (the same, then whatever is flushed later, forever) and
 * `recovery` (what `read` reports, without holding the events). A layer
 * supplies a `Tail` — a cursor that returns the next page of stored events —
 * and, where its storage can say so, a hint that something was written; the
 * hint only wakes the follower early, polling finds what a lost hint missed.
 */
import { Chunk, Duration, Effect, Option, Queue, type Scope, Stream } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import type { Recovery } from "../SessionStore.js"
import type { Holder, StoreError } from "../StoreError.js"

/** A reader's place in one session's log. */
export interface Tail {
  /**
   * The next stored events after the cursor (a page at most), moving the
   * cursor past them; none when nothing more is complete now.
   */
  readonly next: Effect.Effect<ReadonlyArray<SessionLog.SessionEvent>, StoreError>
  /** After `next` returned none: what follows the events without being one yet (JSONL: a torn or unfinished write). */
  readonly pending: () => { readonly line: number; readonly bytes: number } | undefined
}

export interface Streaming {
  readonly header: (id: SessionId) => Effect.Effect<SessionLog.SessionHeader, StoreError>
  /** A cursor over `id` that returns events from `fromSeq` on (earlier ones are checked, not returned). */
  readonly tail: (id: SessionId, fromSeq: number) => Effect.Effect<Tail, StoreError, Scope.Scope>
  /**
   * Hints that `id` may have new events: each take of the returned effect
   * waits for the next hint (one that came since the last take returns at once).
   * The subscription lives as long as the scope.
   */
  readonly changes?: (id: SessionId) => Effect.Effect<Effect.Effect<void>, never, Scope.Scope>
  /** How often a follower looks for new events when no hint came. */
  readonly pollInterval: Duration.Duration
  /**
   * Temporary files a stopped process left beside the session's storage
   * (JSONL), for `recovery`; `torn`: the session ends in a torn tail.
   */
  readonly leftovers?: (id: SessionId, torn: boolean) => Effect.Effect<NonNullable<Recovery["leftovers"]>, StoreError>
}

const pages = (tail: Tail): Stream.Stream<SessionLog.SessionEvent, StoreError> =>
  Stream.repeatEffectChunkOption(
    tail.next.pipe(
      Effect.mapError(Option.some),
      Effect.flatMap((events) => events.length === 0 ? Effect.fail(Option.none()) : Effect.succeed(Chunk.unsafeFromArray(events.slice()))),
    ),
  )

export const stream = (
  streaming: Streaming,
  id: SessionId,
  fromSeq: number,
): Stream.Stream<SessionLog.SessionEvent, StoreError> => Stream.unwrapScoped(Effect.map(streaming.tail(id, fromSeq), pages))

export const follow = (
  streaming: Streaming,
  id: SessionId,
  fromSeq: number,
): Stream.Stream<SessionLog.SessionEvent, StoreError> =>
  Stream.unwrapScoped(
    Effect.gen(function*() {
      // Subscribed before the first read: a write between that read and the first wait still wakes the follower.
      const hint = streaming.changes === undefined ? Effect.never : yield* streaming.changes(id)
      const tail = yield* streaming.tail(id, fromSeq)
      const wait = Effect.raceFirst(Effect.sleep(streaming.pollInterval), hint)
      return Stream.repeatEffectChunk(
        Effect.flatMap(tail.next, (events) => events.length === 0 ? Effect.as(wait, Chunk.empty()) : Effect.succeed(Chunk.unsafeFromArray(events.slice()))),
      )
    }),
  )

/** What `read` reports in `recovery`, from one streaming pass: the torn tail and the open last turn (and leftovers beside it). */
export const recovery = (
  streaming: Streaming,
  id: SessionId,
  holderOf: ((id: SessionId) => Effect.Effect<Holder | undefined, StoreError>) | undefined,
  onEvent?: (event: SessionLog.SessionEvent) => void,
): Effect.Effect<Recovery, StoreError> =>
  Effect.scoped(Effect.gen(function*() {
    const tail = yield* streaming.tail(id, 1)
    // Only the seq of the last turn's start is kept, while it has no end.
    let open: number | undefined
    for (;;) {
      const events = yield* tail.next
      if (events.length === 0) break
      for (const event of events) {
        onEvent?.(event)
        if (event.type === "turn/start") open = event.seq
        else if (event.type === "turn/end") open = undefined
      }
    }
    const pending = tail.pending()
    const holder = open === undefined || holderOf === undefined ? undefined : yield* holderOf(id)
    const leftovers = streaming.leftovers === undefined ? [] : yield* streaming.leftovers(id, pending !== undefined)
    return {
      ...(pending !== undefined ? { tornTail: { bytes: pending.bytes, line: pending.line } } : {}),
      ...(open !== undefined ? { openTurn: holder === undefined ? { seq: open } : { seq: open, holder } } : {}),
      ...(leftovers.length > 0 ? { leftovers } : {}),
    }
  }))

/** A queue of hints that keeps one pending wake-up, however many came. */
export const hintQueue = Effect.map(Queue.sliding<void>(1), (queue) => ({
  signal: (): void => void Queue.unsafeOffer(queue, undefined),
  wait: Queue.take(queue),
}))

export const POLL = Duration.millis(250)
