/**
 * One pi-ai response as a `Stream` of reducer inputs: its events, then
 * `source-end`, or `source-failed` when the source throws (while dispatching or
 * mid-stream). The source never fails the stream: a foreign failure becomes an
 * input here, where it enters, and the reducer classifies it.
 *
 * The request's `AbortController` is a scoped resource: whenever the stream's
 * scope closes (interrupted, its consumer done early, or after the finish) the
 * request is aborted, which closes its HTTP exchange if it is still open.
 */
import type { AssistantMessageEvent } from "@earendil-works/pi-ai"
import { Effect, Stream } from "effect"
import { type Input, sourceEnd, sourceFailed } from "../PiAiChunks.js"
import { messageOf } from "../PiAiFailures.js"

/**
 * pi-ai's event stream is an async generator, whose `return()` waits behind a
 * pending `next()`; only the abort settles that one, and the abort runs when
 * the outer scope closes, after the iterator's own finalizer. So the stream is
 * given an iterator without `return()`: the abort ends the source, and a
 * generator left suspended is collected like any other object.
 */
const withoutReturn = <A>(iterable: AsyncIterable<A>): AsyncIterable<A> => ({
  [Symbol.asyncIterator]: () => {
    const iterator = iterable[Symbol.asyncIterator]()
    return { next: () => iterator.next() }
  },
})

const failed = (cause: unknown): Input => sourceFailed(messageOf(cause))

/** The inputs of the response `open` starts with the given abort signal. */
export const inputs = (open: (signal: AbortSignal) => AsyncIterable<AssistantMessageEvent>): Stream.Stream<Input> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const controller = yield* Effect.acquireRelease(
      Effect.sync(() => new AbortController()),
      (controller) => Effect.sync(() => controller.abort()),
    )
    return Stream.fromEffect(Effect.try({ try: () => open(controller.signal), catch: failed })).pipe(
      Stream.flatMap((events) => Stream.fromAsyncIterable<Input, Input>(withoutReturn(events), failed)),
      Stream.concat(Stream.succeed(sourceEnd)),
      Stream.catchAll((input) => Stream.succeed(input)),
    )
  }))
