/**
 * Reading a stored session's stream page by page, each page let go before the
 * next is pulled. `Stream.runForEach` over a long session kept pages reachable
 * long enough for young-generation collections to promote them, so the heap
 * of a 10,000-turn `show` grew with the session (garbage only a full
 * collection frees); pulling one page at a time does not (`npm run bench --
 * show`).
 */
import { Chunk, Effect, Option, Stream } from "effect"

/** Runs `f` on each page (chunk) of `stream`, in order, pulling the next only when `f` is done. */
export const forEachPage = <A, E, E2, R>(
  stream: Stream.Stream<A, E>,
  f: (page: Chunk.Chunk<A>) => Effect.Effect<void, E2, R>,
): Effect.Effect<void, E | E2, R> =>
  Effect.scoped(Effect.gen(function*() {
    const pull = yield* Stream.toPull(stream)
    for (;;) {
      const page = yield* Effect.catchAll(Effect.map(pull, Option.some), (end) =>
        Option.match(end, { onNone: () => Effect.succeed(Option.none<Chunk.Chunk<A>>()), onSome: Effect.fail }))
      if (Option.isNone(page))
        return
      yield* f(page.value)
    }
  }))

/** Runs `f` on each element of `stream`, a page at a time (see `forEachPage`). */
export const forEach = <A, E>(stream: Stream.Stream<A, E>, f: (a: A) => void): Effect.Effect<void, E> =>
  forEachPage(stream, (page) => Effect.sync(() => Chunk.forEach(page, f)))
