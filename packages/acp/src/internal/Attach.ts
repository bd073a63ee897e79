/** The session's permission questions routed to a client, each showing its call as the call's `tool_call` update did. */
import type * as acp from "@agentclientprotocol/sdk"
import type { Service as CallIds } from "../CallIds.js"
import type { Rule, Service as Bridge } from "../PermissionBridge.js"
import * as Updates from "../Updates.js"

export const attacher = (bridge: Bridge, callIds: CallIds) =>
(
  client: acp.AgentContext,
  id: string,
  view: Updates.View,
  rules: ReadonlyArray<Rule> = [],
) =>
  bridge.attach(
    id,
    client,
    (question) =>
      Updates.describe(view, callIds.session(id).prepared.latest(question.callId), {
        name: question.tool,
        arguments: typeof question.input === "string" ? question.input : JSON.stringify(question.input) ?? "",
      }),
    rules,
  )
