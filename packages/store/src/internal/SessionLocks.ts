/**
 * One lock per session: operations on the same session run one at a time (an
 * open, an append and a flush must not interleave between their steps), while
 * operations on different sessions never wait for each other, so one session's
 * stalled write (a row lock held elsewhere, a slow disk) stalls only that
 * session. A session's lock exists while something holds or waits for it.
 */
import { Effect } from "effect"

interface Entry {
  readonly lock: Effect.Semaphore
  /** Operations holding or waiting for the lock. */
  users: number
}

export const make = <K>() => {
  const locks = new Map<K, Entry>()
  const enter = (key: K) =>
    Effect.sync(() => {
      let entry = locks.get(key)
      if (entry === undefined) {
        entry = { lock: Effect.unsafeMakeSemaphore(1), users: 0 }
        locks.set(key, entry)
      }
      entry.users++
      return entry
    })
  const leave = (key: K, entry: Entry) =>
    Effect.sync(() => {
      if (--entry.users === 0) locks.delete(key)
    })
  /** Runs `effect` holding the lock of `key`. */
  return <A, E, R>(key: K, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.acquireUseRelease(enter(key), (entry) => entry.lock.withPermits(1)(effect), (entry) => leave(key, entry))
}
