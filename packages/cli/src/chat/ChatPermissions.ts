/**
 * Permissions for the interactive session: asked in the view (allow once,
 * allow always, reject), with the session's standing answers kept as the
 * editor path keeps them — read from the log's `permission/rule` events when
 * a session opens, and the new ones logged after the turn (see `Rules` of
 * `@turnlog/acp`). A standing answer is for one tool in one session.
 */
import { Effect, Layer } from "effect"
import { Permissions } from "@turnlog/agent"
import type { Rule } from "@turnlog/acp/PermissionBridge"
import * as PermissionDetail from "../PermissionDetail.js"
import type { ChatView, Question } from "./ChatView.js"

export interface ChatPermissions {
  readonly layer: Layer.Layer<Permissions.Permissions>
  /** The session's standing answers so far, from its log. */
  readonly restore: (sessionId: string, rules: ReadonlyArray<Rule>) => void
  /** The standing answers given since the last call, for the log; each is returned once. */
  readonly takeNewRules: (sessionId: string) => Effect.Effect<ReadonlyArray<Rule>>
}

export const make = (view: Pick<ChatView, "ask">): ChatPermissions => {
  const standing = new Map<string, Map<string, Rule["decision"]>>()
  const unsaved = new Map<string, Array<Rule>>()
  const rulesOf = (sessionId: string) => {
    const found = standing.get(sessionId) ?? new Map<string, Rule["decision"]>()
    standing.set(sessionId, found)
    return found
  }

  const ask = (request: Permissions.Request): Effect.Effect<Permissions.Decision> => {
    const rule = rulesOf(request.sessionId).get(request.tool)
    if (rule !== undefined) return Effect.succeed(rule)
    const question: Question = { title: request.title, tool: request.tool, ...PermissionDetail.of(request) }
    return Effect.async<Permissions.Decision>((resume) => {
      const asked = view.ask(question)
      void asked.answer.then((answer) => {
        if (answer === "allow-always") {
          rulesOf(request.sessionId).set(request.tool, "allow")
          unsaved.set(request.sessionId, [...(unsaved.get(request.sessionId) ?? []), { tool: request.tool, decision: "allow" }])
        }
        resume(Effect.succeed(answer === "reject" ? "deny" : "allow"))
      })
      // Interrupted (the turn was cancelled): the question is taken away.
      return Effect.sync(asked.withdraw)
    })
  }

  return {
    layer: Permissions.layerAsk(ask),
    restore: (sessionId, rules) => {
      standing.set(sessionId, new Map(rules.map((r) => [r.tool, r.decision])))
    },
    takeNewRules: (sessionId) =>
      Effect.sync(() => {
        const rules = unsaved.get(sessionId) ?? []
        unsaved.delete(sessionId)
        return rules
      }),
  }
}
