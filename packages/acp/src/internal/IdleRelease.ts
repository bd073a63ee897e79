/**
 * When to let go of a session nobody uses. Each session open on a connection
 * counts the requests working on it (`busy` … `idle`); when the count falls to
 * zero a timer starts, and the next `busy` stops it. When the timer runs out,
 * `release` runs, uninterruptibly: a request that arrives meanwhile waits for
 * it to finish, then finds the session let go (and opens it again). Time is
 * Effect's `Clock`, so tests move it with `TestClock`.
 */
import { type Duration, Effect, FiberMap, HashMap, Option, Ref, type Scope } from "effect"

export interface IdleRelease {
  /** A request begins working on the session: its timer stops (a release under way finishes first). */
  readonly busy: (id: string) => Effect.Effect<void>
  /** A request is done with the session (or it was just opened); the last one starts its timer. */
  readonly idle: (id: string) => Effect.Effect<void>
  /** The session is closed: no timer, no count. */
  readonly forget: (id: string) => Effect.Effect<void>
}

export const make = (
  after: Duration.DurationInput,
  release: (id: string) => Effect.Effect<void>,
): Effect.Effect<IdleRelease, never, Scope.Scope> =>
  Effect.gen(function*() {
    const timers = yield* FiberMap.make<string>()
    const uses = yield* Ref.make(HashMap.empty<string, number>())
    // `busy` and `idle` change the count and the timer together, one at a time.
    const lock = yield* Effect.makeSemaphore(1)
    const serial = lock.withPermits(1)
    const stop = (id: string) => FiberMap.remove(timers, id)
    const count = (all: HashMap.HashMap<string, number>, id: string) => Option.getOrElse(HashMap.get(all, id), () => 0)

    const busy = (id: string) =>
      serial(Effect.zipRight(
        Ref.update(uses, (all) => HashMap.set(all, id, count(all, id) + 1)),
        stop(id),
      ))

    const idle = (id: string) =>
      serial(Effect.gen(function*() {
        const left = yield* Ref.modify(uses, (all) => {
          const n = Math.max(0, count(all, id) - 1)
          return [n, n === 0 ? HashMap.remove(all, id) : HashMap.set(all, id, n)] as const
        })
        if (left > 0) return
        yield* stop(id)
        yield* FiberMap.run(timers, id, Effect.sleep(after).pipe(Effect.zipRight(Effect.uninterruptible(release(id)))))
      }))

    const forget = (id: string) => serial(Effect.zipRight(Ref.update(uses, HashMap.remove(id)), stop(id)))

    return { busy, idle, forget } satisfies IdleRelease
  })
