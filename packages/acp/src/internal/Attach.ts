/**
 * A session held by a client: its permission questions routed to it, each
 * showing its call as the call's `tool_call` update did, and its tools working
 * through the client's file system and terminal where the client offers them.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Effect } from "effect"
import type { Service as CallIds } from "../CallIds.js"
import type { Service as EditorHosts } from "../EditorHost.js"
import type { Rule, Service as Bridge } from "../PermissionBridge.js"
import * as Updates from "../Updates.js"

/** `offered`: what the connection's client said it can do in `initialize` (nothing before it). */
export const attacher = (bridge: Bridge, callIds: CallIds, hosts: EditorHosts, offered: () => acp.ClientCapabilities | undefined) =>
(
  client: acp.AgentContext,
  id: string,
  view: Updates.View,
  rules: ReadonlyArray<Rule> = [],
) =>
  Effect.zipRight(
    bridge.attach(
      id,
      client,
      (question) =>
        Updates.describe(view, callIds.session(id).prepared.latest(question.callId), {
          name: question.tool,
          arguments: typeof question.input === "string" ? question.input : JSON.stringify(question.input) ?? "",
        }),
      rules,
    ),
    hosts.attach(id, client, offered()),
  )

/** The session is no longer held by the client. */
export const detacher = (bridge: Bridge, hosts: EditorHosts) => (id: string) => Effect.zipRight(bridge.detach(id), hosts.detach(id))
