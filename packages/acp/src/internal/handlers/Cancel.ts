/**
 * `session/cancel` (a notification): the session's turn in flight is
 * cancelled, and a prompt sent before it answers waits for it. One for a
 * session not open on this connection is logged and ignored.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { SessionId } from "@turnlog/protocol"
import type { Deps } from "./Deps.js"

export const handler =
  (deps: Pick<Deps, "loop" | "runPromise" | "log" | "connection">) => async ({ params }: acp.AgentNotificationContext<acp.CancelNotification>) => {
    if (!deps.connection.isOpen(params.sessionId)) {
      deps.log(`session/cancel for ${params.sessionId}, which is not open on this connection: ignored`)
      return
    }
    deps.connection.cancelRequested(params.sessionId)
    await deps.runPromise(deps.loop.cancel(SessionId.make(params.sessionId)))
  }
