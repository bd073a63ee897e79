/**
 * Tool-call ids as the editor sees them. Some providers reuse their ids across
 * replies (`call_1` every time), but a client keys a session's tool calls by
 * id: the n-th call of a session to carry provider id `X` is shown as `X#n`
 * (the first as `X` itself). The log keeps what the provider sent; live turns
 * and a replayed history count the same way.
 *
 * Two counters per session: the server's, advanced as it shows each call, and
 * the turn's, advanced as the loop prepares each call (`layerTools`) — so the
 * permission question, asked from inside the turn, names the call it is about
 * even when the server has not shown it yet.
 */
import { Context, Effect, Layer } from "effect"
import { Tools } from "@turnlog/agent"

/** The id a client is shown for the `occurrence`-th call with `providerId` (from 1). */
export const shown = (providerId: string, occurrence: number): string => occurrence <= 1 ? providerId : `${providerId}#${occurrence}`

/** Occurrences of each provider id in one session, counted in the order calls are made. */
export class Counter {
  private readonly counts = new Map<string, number>()
  /** The id of the next call with `providerId`. */
  next(providerId: string): string {
    const n = (this.counts.get(providerId) ?? 0) + 1
    this.counts.set(providerId, n)
    return shown(providerId, n)
  }
  /** The id of the latest call with `providerId` (the first one's if none was counted). */
  latest(providerId: string): string {
    return shown(providerId, this.counts.get(providerId) ?? 1)
  }
  copyFrom(other: Counter): void {
    this.counts.clear()
    for (const [id, n] of other.counts) this.counts.set(id, n)
  }
}

interface Session {
  readonly shown: Counter
  readonly prepared: Counter
}

export interface Service {
  /** The session's counters, made on first use. */
  readonly session: (sessionId: string) => Session
  /** Before a turn: the turn counts from what was shown (a cancel can leave a call shown but never prepared). */
  readonly beginTurn: (sessionId: string) => void
  readonly forget: (sessionId: string) => void
}

export class CallIds extends Context.Tag("@turnlog/acp/CallIds")<CallIds, Service>() {}

export const make = (): Service => {
  const sessions = new Map<string, Session>()
  const session = (sessionId: string): Session => {
    let found = sessions.get(sessionId)
    if (found === undefined) {
      found = { shown: new Counter(), prepared: new Counter() }
      sessions.set(sessionId, found)
    }
    return found
  }
  return {
    session,
    beginTurn: (sessionId) => {
      const s = session(sessionId)
      s.prepared.copyFrom(s.shown)
    },
    forget: (sessionId) => {
      sessions.delete(sessionId)
    },
  }
}

export const layer: Layer.Layer<CallIds> = Layer.sync(CallIds, make)

/** The tools the loop is given, counting each call as it is prepared. */
export const layerTools: Layer.Layer<Tools.Tools, never, Tools.Tools | CallIds> = Layer.effect(
  Tools.Tools,
  Effect.gen(function*() {
    const tools = yield* Tools.Tools
    const ids = yield* CallIds
    return {
      ...tools,
      prepare: (call, context) =>
        Effect.suspend(() => {
          ids.session(context.sessionId).prepared.next(context.callId)
          return tools.prepare(call, context)
        }),
    }
  }),
)
