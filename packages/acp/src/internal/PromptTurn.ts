/**
 * One prompt's turn as the client sees it: the loop's updates sent as
 * `session/update` notifications as they happen, then the answer — the stop
 * reason and the turn's usage, or the turn's failure as the JSON-RPC error.
 * Before the answer, a `usage_update` says how full the context is against the
 * model's window (when the model's window is known) and the session's cost.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Effect, Stream } from "effect"
import { type AgentLoop, PlanExit } from "@turnlog/agent"
import { type ImageBlock, SessionId, type TextBlock } from "@turnlog/protocol"
import type { Service as CallIds } from "../CallIds.js"
import * as Errors from "../Errors.js"
import * as Modes from "../Modes.js"
import * as Plan from "../Plan.js"
import * as Updates from "../Updates.js"

export interface Deps {
  readonly loop: AgentLoop.Service
  readonly callIds: CallIds
  readonly log: (line: string) => void
  /** Tells the client; never fails (a client that went away cannot be told, the turn still ends durably). */
  readonly notify: (client: acp.AgentContext, id: string, update: acp.SessionUpdate) => Effect.Effect<void>
  /** Names the session once, from its first prompt. */
  readonly sendTitle: (client: acp.AgentContext, id: string, title: string) => Effect.Effect<void>
  /** Logs the standing answers given during the turn. */
  readonly saveRules: (id: string) => Effect.Effect<void>
}

export const make = (deps: Deps) =>
(
  client: acp.AgentContext,
  id: string,
  view: Updates.View,
  content: ReadonlyArray<TextBlock | ImageBlock>,
): Effect.Effect<acp.PromptResponse, acp.RequestError> => {
  // The turn's calls by provider id: a result's update shows what its call changes.
  const calls = new Map<string, Updates.Call>()
  return Effect.sync(() => deps.callIds.beginTurn(id)).pipe(
    Effect.zipRight(deps.sendTitle(client, id, Updates.titleOf(content))),
    Effect.zipRight(
      deps.loop.prompt(SessionId.make(id), content).pipe(
        Stream.runFoldEffect(Updates.emptyTurn, (turn, update) => {
          if (update.type === "turn-end") return Effect.succeed({ ...turn, end: update })
          if (update.type === "retry") {
            deps.log(
              `session ${id}: provider failed (${update.failure.code}: ${update.failure.message}); retry ${update.attempt} in ${update.delayMs} ms`,
            )
          }
          const next = update.type === "usage" ? Updates.addUsage(turn, update.usage) : turn
          const shown = Updates.fromAgentUpdate(update, view, deps.callIds.session(id).shown, calls)
          // The user approved the model's plan: the session has left read-only mode.
          const left = update.type === "tool-result" && update.name === PlanExit.NAME && !update.isError
            ? deps.notify(client, id, Modes.update(PlanExit.TARGET))
            : Effect.void
          // A `todo` call's result: the editor is sent the model's plan.
          const plan = update.type === "tool-result" ? Plan.ofResult(update.name, update.isError, calls.get(update.callId)) : undefined
          return Effect.as(
            Effect.zipRight(
              shown === undefined ? Effect.void : deps.notify(client, id, shown),
              Effect.zipRight(plan === undefined ? Effect.void : deps.notify(client, id, plan), left),
            ),
            next,
          )
        }),
      ),
    ),
    Effect.tap(() => deps.saveRules(id)),
    // After every turn, however it ended: how full the context is now, and what the session has cost.
    Effect.tap(() =>
      Effect.flatMap(
        deps.loop.contextUsage(SessionId.make(id)),
        (usage) => usage === undefined ? Effect.void : deps.notify(client, id, Updates.usageUpdate(usage)),
      )
    ),
    Effect.mapError(Errors.fromAgentError),
    Effect.flatMap((turn): Effect.Effect<acp.PromptResponse, acp.RequestError> => {
      const end = turn.end
      if (end === undefined) return Effect.fail(Errors.turnFailed(undefined))
      if (end.reason === "error") {
        deps.log(`session ${id}: turn failed: ${end.failure?.message ?? "no cause reported"}`)
        return Effect.fail(Errors.turnFailed(end.failure))
      }
      return Effect.succeed(Updates.promptResponse(end.reason, turn.usage))
    }),
  )
}
