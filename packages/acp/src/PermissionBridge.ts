/**
 * Routes the agent's permission questions to the editor that owns the session.
 * The `Permissions` layer is built once, before any client connects; the ACP
 * server attaches each session it creates or loads to its connection here, and
 * a question for a session no editor holds is answered "no". The request
 * shows the call exactly as its `tool_call` update did (the server says how).
 */
import { Context, Effect, Layer, Ref } from "effect"
import type * as acp from "@agentclientprotocol/sdk"
import { Permissions } from "@turnlog/agent"

/** What the agent wants to do, as the permission service describes it. */
export interface PermissionQuestion {
  readonly sessionId: string
  readonly callId: string
  readonly tool: string
  readonly kind: "write" | "command" | "mode"
  readonly title: string
  readonly input: unknown
}

/** The option ids offered to the editor. */
export const ALLOW_ONCE = "allow-once"
export const ALLOW_ALWAYS = "allow-always"
export const REJECT_ONCE = "reject-once"
export const REJECT_ALWAYS = "reject-always"

/** A standing answer for one tool in one session, as the log keeps it (`permission/rule`). */
export interface Rule {
  readonly tool: string
  readonly decision: "allow" | "deny"
}

/** The call a question is about, as the editor was (or is about to be) shown it. */
export type Describe = (question: PermissionQuestion) => acp.ToolCallUpdate

export interface Service {
  /** Asks the editor holding the session; `true` only for an explicit allow. */
  readonly ask: (question: PermissionQuestion) => Effect.Effect<boolean>
  /** Routes the session's questions to `client`; `rules` are its standing answers so far (from its log). */
  readonly attach: (
    sessionId: string,
    client: acp.AgentContext,
    describe?: Describe,
    rules?: ReadonlyArray<Rule>,
  ) => Effect.Effect<void>
  readonly detach: (sessionId: string) => Effect.Effect<void>
  /** The standing answers given since the last call, for the log; each is returned once. */
  readonly takeNewRules: (sessionId: string) => Effect.Effect<ReadonlyArray<Rule>>
}

export class PermissionBridge extends Context.Tag("@turnlog/acp/PermissionBridge")<PermissionBridge, Service>() {}

const kindOf = (question: PermissionQuestion): acp.ToolKind => question.kind === "write" ? "edit" : question.kind === "mode" ? "switch_mode" : "execute"

/** Without the server's description: the question's own words. */
const plain: Describe = (question) => ({
  toolCallId: question.callId,
  title: question.title,
  kind: kindOf(question),
  name: question.tool,
  rawInput: question.input,
})

export const toRequest = (question: PermissionQuestion, describe: Describe = plain): acp.RequestPermissionRequest => ({
  sessionId: question.sessionId,
  toolCall: { ...describe(question), status: "pending" },
  options: [
    { optionId: ALLOW_ONCE, name: "Allow", kind: "allow_once" },
    { optionId: ALLOW_ALWAYS, name: `Always allow ${question.tool} in this session`, kind: "allow_always" },
    { optionId: REJECT_ONCE, name: "Reject", kind: "reject_once" },
    { optionId: REJECT_ALWAYS, name: `Always reject ${question.tool} in this session`, kind: "reject_always" },
  ],
})

interface Held {
  readonly client: acp.AgentContext
  readonly describe: Describe
  readonly rules: Map<string, Rule["decision"]>
  readonly unsaved: Array<Rule>
}

/** What the editor chose: an option id, or nothing usable (said on stderr). */
const chosen = (question: PermissionQuestion, response: unknown): string | undefined => {
  // The answer is the editor's, unchecked by the SDK: anything but a clear allow is no.
  const outcome: unknown = typeof response === "object" && response !== null && "outcome" in response
    ? response.outcome
    : undefined
  if (typeof outcome !== "object" || outcome === null || !("outcome" in outcome)) {
    process.stderr.write(
      `turnlog: the answer to the permission request for ${question.title} is not a permission outcome, treated as rejected: ${
        JSON.stringify(response) ?? String(response)
      }\n`,
    )
    return undefined
  }
  return outcome.outcome === "selected" && "optionId" in outcome && typeof outcome.optionId === "string"
    ? outcome.optionId
    : undefined
}

export const make = Effect.gen(function*() {
  const clients = yield* Ref.make<ReadonlyMap<string, Held>>(new Map())

  const decide = (held: Held, question: PermissionQuestion, option: string | undefined): boolean => {
    if (option === ALLOW_ALWAYS || option === REJECT_ALWAYS) {
      const rule: Rule = { tool: question.tool, decision: option === ALLOW_ALWAYS ? "allow" : "deny" }
      held.rules.set(rule.tool, rule.decision)
      held.unsaved.push(rule)
      return rule.decision === "allow"
    }
    return option === ALLOW_ONCE
  }

  const service: Service = {
    ask: (question) =>
      Ref.get(clients).pipe(
        Effect.flatMap((all) => {
          const held = all.get(question.sessionId)
          if (held === undefined) return Effect.succeed(false)
          const standing = held.rules.get(question.tool)
          if (standing !== undefined) return Effect.succeed(standing === "allow")
          return Effect.tryPromise(() => held.client.request("session/request_permission", toRequest(question, held.describe))).pipe(
            Effect.map((response) => decide(held, question, chosen(question, response))),
            // An editor that cannot answer (gone, or an error reply) has not said yes.
            Effect.catchAll((error) =>
              Effect.sync(() => {
                process.stderr.write(
                  `turnlog: permission request for ${question.title} failed, treated as rejected: ${
                    error.error instanceof Error ? error.error.message : String(error.error)
                  }\n`,
                )
                return false
              })
            ),
          )
        }),
      ),
    attach: (sessionId, client, describe = plain, rules = []) =>
      Ref.update(clients, (all) =>
        new Map(all).set(sessionId, {
          client,
          describe,
          rules: new Map(rules.map((r) => [r.tool, r.decision])),
          unsaved: [],
        })),
    detach: (sessionId) =>
      Ref.update(clients, (all) => {
        const next = new Map(all)
        next.delete(sessionId)
        return next
      }),
    takeNewRules: (sessionId) => Effect.map(Ref.get(clients), (all) => all.get(sessionId)?.unsaved.splice(0) ?? []),
  }
  return service
})

export const layer = Layer.effect(PermissionBridge, make)

/** The agent's `Permissions`, answered by the editor holding the session. */
export const layerPermissions: Layer.Layer<Permissions.Permissions, never, PermissionBridge> = Permissions.layerAsk(
  (request) =>
    Effect.flatMap(PermissionBridge, (bridge) => bridge.ask(request)).pipe(
      Effect.map((allowed): Permissions.Decision => (allowed ? "allow" : "deny")),
    ),
)
