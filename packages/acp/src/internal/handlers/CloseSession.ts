/**
 * `session/close`: a session open on this connection let go of. A prompt of
 * it in flight ends as cancelled (and is answered) first; then its timer, its
 * call ids, its MCP servers and its attachment to the client go, and the loop
 * releases it.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Effect } from "effect"
import { SessionId } from "@turnlog/protocol"
import * as Errors from "../../Errors.js"
import type { Deps } from "./Deps.js"

/** Closes a session open on this connection (also how `session/delete` closes one). */
export const closer =
  (deps: Pick<Deps, "loop" | "run" | "runPromise" | "callIds" | "mcpServers" | "lifetime" | "detach" | "connection">) => async (id: string): Promise<void> => {
    if (!deps.connection.isOpen(id)) throw Errors.unknownSession(id)
    await deps.runPromise(deps.loop.cancel(SessionId.make(id)))
    await deps.connection.turnOf(id)
    await deps.lifetime.closed(id)
    deps.connection.closed(id)
    deps.callIds.forget(id)
    await deps.mcpServers.close(id)
    await deps.run(
      deps.detach(id).pipe(
        Effect.zipRight(deps.loop.release(SessionId.make(id))),
        Effect.mapError(Errors.fromAgentError),
      ),
    )
  }

export const handler = (close: (id: string) => Promise<void>) => async ({ params }: acp.AgentRequestContext<acp.CloseSessionRequest>) => {
  await close(params.sessionId)
  return {}
}
