/**
 * A session's slash commands (`available_commands_update`), sent once the
 * client knows the session: after the answer to `session/new`, or before a
 * prompt of the session that arrives first, so the order a client sees never
 * varies. Nothing is sent when the server offers no commands.
 */
import type * as acp from "@agentclientprotocol/sdk"

export const make = (enabled: boolean, send: (client: acp.AgentContext, id: string) => Promise<void>) => {
  // Sessions whose commands are not sent yet.
  const unadvertised = new Set<string>()
  const advertiseNow = async (client: acp.AgentContext, id: string) => {
    if (!unadvertised.delete(id)) return
    await send(client, id)
  }
  /** Sends them once the answer in hand has gone out. */
  const advertise = (client: acp.AgentContext, id: string) => {
    if (!enabled) return
    unadvertised.add(id)
    setImmediate(() => void advertiseNow(client, id))
  }
  return { advertise, advertiseNow, unadvertised }
}
