/**
 * A fork of a stored session at a turn: a new session, in the same store,
 * whose log starts with the original's events up to the turn (seq, time and
 * data unchanged, raw chunks and replay envelopes included, so continuing it
 * replays natively), then one `session/fork` event naming where it came
 * from. The original is only read (no lease): a session another process is
 * writing can be forked at any turn it has ended.
 *
 * A fork at turn n keeps everything before turn n + 1 starts: what was set
 * between the turns (a mode, a standing permission answer, a compaction)
 * belongs to the history the fork continues. The default turn is the last
 * ended one; a turn still open (in flight, or left open by a process that
 * stopped) is never copied.
 */
import { Data, Effect, Either } from "effect"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import type { Service } from "./SessionStore.js"
import type { StoreError } from "./StoreError.js"

/** The turn asked for is not one the session has ended (`turns`: how many it has; 0, none). */
export class ForkTurnOutOfRange extends Data.TaggedError("ForkTurnOutOfRange")<{
  readonly sessionId: SessionId
  readonly turn: number | undefined
  readonly turns: number
}> {
  override get message() {
    if (this.turns === 0) return `session ${this.sessionId} has no ended turn to fork`
    const range = this.turns === 1 ? "1" : `1 to ${this.turns}`
    return `turn ${this.turn} is not a turn of session ${this.sessionId}: give ${range}`
  }
}

/** The turns a fork may be taken at: the session's ended turns, 1 to this number. */
export const endedTurns = (events: ReadonlyArray<SessionLog.SessionEvent>): number => {
  let started = 0
  let open = false
  for (const event of events) {
    if (event.type === "turn/start") {
      started++
      open = true
    } else if (event.type === "turn/end") open = false
  }
  return open ? started - 1 : started
}

/**
 * The events a fork at `at` (default: the last ended turn) starts with, and
 * the turn; `turns` when `at` is not an ended turn.
 */
export const cut = (
  events: ReadonlyArray<SessionLog.SessionEvent>,
  at: number | undefined,
): Either.Either<{ readonly events: ReadonlyArray<SessionLog.SessionEvent>; readonly turn: number }, { readonly turns: number }> => {
  const turns = endedTurns(events)
  const turn = at ?? turns
  if (!Number.isInteger(turn) || turn < 1 || turn > turns) return Either.left({ turns })
  let started = 0
  for (let i = 0; i < events.length; i++) {
    if (events[i]!.type === "turn/start" && ++started === turn + 1) return Either.right({ events: events.slice(0, i), turn })
  }
  return Either.right({ events, turn })
}

export interface Forked {
  readonly id: SessionId
  /** The original's turn the fork was taken at. */
  readonly turn: number
}

/**
 * Forks session `id` at turn `at` (default: its last ended turn) into a new
 * session of `store`, in `cwd` (default: the original's). The new session is
 * durable and released when this returns.
 */
export const fork = (
  store: Service,
  id: SessionId,
  options: { readonly at?: number; readonly cwd?: string } = {},
): Effect.Effect<Forked, StoreError | ForkTurnOutOfRange> =>
  Effect.gen(function*() {
    const original = yield* store.read(id)
    const taken = cut(original.events, options.at)
    if (Either.isLeft(taken)) {
      return yield* new ForkTurnOutOfRange({ sessionId: id, turn: options.at, turns: taken.left.turns })
    }
    const { events, turn } = taken.right
    const marker = SessionLog.stamp(events.length + 1, [{ type: "session/fork", data: { forkedFrom: { session: id, turn } } }])
    const created = yield* store.create({
      cwd: options.cwd ?? original.header.cwd,
      // The copied events are written in the format the original was.
      version: original.header.version,
      ...(original.header.title !== undefined ? { title: original.header.title } : {}),
      events: [...events, ...marker],
    })
    yield* store.release(created)
    return { id: created, turn }
  })
