/**
 * The standing answers given during a turn, written to the session's log so a
 * reload keeps them. The loop has no way to log an event between turns, so
 * they are appended after its last event and the loop then reloads the
 * session to write on from there. The interactive session of the command
 * line saves its standing answers the same way.
 */
import { Effect } from "effect"
import type { AgentLoop } from "@turnlog/agent"
import { SessionId, SessionLog } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"
import type { Service as Bridge } from "./PermissionBridge.js"

export interface Deps {
  readonly bridge: Pick<Bridge, "takeNewRules">
  readonly store: SessionStore.Service
  readonly loop: AgentLoop.Service
  /** The session's model when it is not the default. */
  readonly modelOf: (id: string) => string | undefined
  readonly log: (line: string) => void
}

export const saver = (deps: Deps) => (id: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    const rules = yield* deps.bridge.takeNewRules(id)
    if (rules.length === 0) return
    const sessionId = SessionId.make(id)
    const stored = yield* deps.store.read(sessionId)
    const next = (stored.events.at(-1)?.seq ?? 0) + 1
    yield* deps.store.append(
      sessionId,
      SessionLog.stamp(next, rules.map((data) => ({ type: "permission/rule" as const, data }))),
    )
    yield* deps.store.flush(sessionId)
    const model = deps.modelOf(id)
    yield* deps.loop.load(sessionId, model === undefined ? undefined : { model })
  }).pipe(
    Effect.catchAll((error) => Effect.sync(() => deps.log(`session ${id}: a standing permission answer could not be logged: ${error.message}`))),
  )
