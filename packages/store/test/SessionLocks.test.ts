// The store core locks each session on its own: a session whose write is stalled
// (a row lock held elsewhere, a slow disk) holds up only that session's next
// operations, never a write to another session of the same process.
import { expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Option } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { type Backend, makeCore } from "../src/internal/Core.js"
import { POLL } from "../src/internal/Streaming.js"
import { SessionNotFound } from "../src/StoreError.js"
import { stamped, userMessage } from "./support/fixtures.js"

interface Stored {
  readonly header: SessionLog.SessionHeader
  readonly events: Array<SessionLog.SessionEvent>
}

/** An engine in memory whose writes of one session wait for `gate` once `stall` is set (`entered` says one is waiting). */
const stallingBackend = (stalled: { id?: SessionId; stall: boolean }, gate: Deferred.Deferred<void>, entered: Deferred.Deferred<void>) => {
  const stored = new Map<SessionId, Stored>()
  const backend: Backend = {
    acquire: (id) =>
      Effect.succeed({
        write: (header, events, first) =>
          Effect.gen(function*() {
            if (stalled.stall && id === stalled.id) {
              yield* Deferred.succeed(entered, undefined)
              yield* Deferred.await(gate)
            }
            const session = first ? { header, events: [] } : stored.get(id)!
            session.events.push(...events)
            stored.set(id, session)
          }),
        release: Effect.void,
        remove: Effect.sync(() => stored.delete(id)),
      }),
    load: (id) =>
      Effect.suspend(() => {
        const session = stored.get(id)
        return session === undefined
          ? Effect.fail(new SessionNotFound({ sessionId: id }))
          : Effect.succeed({ header: session.header, events: [...session.events] })
      }),
    list: () => Effect.succeed({ sessions: [], unreadable: [] }),
    streaming: {
      header: (id) => Effect.succeed(stored.get(id)!.header),
      tail: () => Effect.succeed({ next: Effect.succeed([]), pending: () => undefined }),
      pollInterval: POLL,
    },
  }
  return { backend, stored }
}

it.live("a session whose write is stalled holds up its own next append, not a write to another session", () =>
  Effect.scoped(Effect.gen(function*() {
    const gate = yield* Deferred.make<void>()
    const entered = yield* Deferred.make<void>()
    const stalled: { id?: SessionId; stall: boolean } = { stall: false }
    const { backend, stored } = stallingBackend(stalled, gate, entered)
    const store = yield* makeCore(backend)
    // Closing the store (after a failure too) must not wait for a stall nobody ends.
    yield* Effect.addFinalizer(() => Deferred.succeed(gate, undefined))
    const a = yield* store.create({ cwd: "/a" })
    const b = yield* store.create({ cwd: "/b" })
    stalled.id = a
    stalled.stall = true

    yield* store.append(a, stamped(1, [{ type: "turn/start", data: {} }, userMessage("to a")]))
    const flushA = yield* Effect.fork(store.flush(a))
    yield* Deferred.await(entered)
    // The same session waits for its stalled flush...
    const appendA = yield* Effect.fork(store.append(a, stamped(3, [userMessage("later to a")])))

    // ...another session does not: its write completes while a's is still stalled.
    yield* store.append(b, stamped(1, [{ type: "turn/start", data: {} }, userMessage("to b")])).pipe(
      Effect.zipRight(store.flush(b)),
      Effect.timeoutFail({ duration: Duration.seconds(5), onTimeout: () => "a write to b waited for a's stalled write" }),
    )
    expect(stored.get(b)!.events.map((e) => [e.seq, e.type])).toStrictEqual([[1, "turn/start"], [2, "user/message"]])
    expect((yield* store.read(b)).events.map((e) => e.seq)).toStrictEqual([1, 2])
    expect(Option.isNone(yield* Fiber.poll(flushA))).toBe(true)
    expect(Option.isNone(yield* Fiber.poll(appendA))).toBe(true)
    expect(stored.get(a)!.events).toStrictEqual([])

    yield* Deferred.succeed(gate, undefined)
    yield* Fiber.join(flushA)
    yield* Fiber.join(appendA)
    yield* store.flush(a)
    expect(stored.get(a)!.events.map((e) => [e.seq, e.type])).toStrictEqual([[1, "turn/start"], [2, "user/message"], [3, "user/message"]])
  })))
