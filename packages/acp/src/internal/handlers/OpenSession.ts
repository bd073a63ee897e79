/**
 * `session/load` (the stored history replayed first) and `session/resume`
 * (without it), each answered with the session's mode and config options.
 * The opening itself is `Open`'s; what the connection and the server keep of
 * the session is set from it: the title sent again, the default model, the
 * reasoning effort its log leaves it with, its commands told before the answer.
 */
import type * as acp from "@agentclientprotocol/sdk"
import type { SessionLog } from "@turnlog/protocol"
import * as Modes from "../../Modes.js"
import * as Open from "../Open.js"
import type { Deps } from "./Deps.js"

/** Opens a session on this connection, replaying its history when asked; answers its mode. */
export type Opener = (client: acp.AgentContext, params: Open.Params, replay: boolean) => Promise<SessionLog.Mode>

export const opener = (
  deps: Pick<
    Deps,
    | "options"
    | "loop"
    | "run"
    | "log"
    | "tools"
    | "callIds"
    | "mcpServers"
    | "lifetime"
    | "attach"
    | "sendTitle"
    | "connection"
    | "settings"
    | "advertiser"
    | "reportMcp"
  >,
): Opener =>
  Open.make({
    loop: deps.loop,
    run: deps.run,
    log: deps.log,
    tools: deps.tools,
    callIds: deps.callIds,
    mcpServers: deps.mcpServers,
    lifetime: deps.lifetime,
    attach: deps.attach,
    sendTitle: deps.sendTitle,
    connection: deps.connection,
    restore: deps.settings.restore,
    forget: (id) => {
      // Opened again, the session talks to the default model.
      deps.settings.forgetModel(id)
      deps.connection.forgetTitle(id)
    },
    noteMcp: deps.reportMcp,
    // The client named this session, so it may hear of its commands before the answer,
    // as it hears the replayed history: nothing is left to write once it has the answer.
    announce: async (client, id) => {
      if (deps.options.doctor === undefined) return
      deps.advertiser.unadvertised.add(id)
      await deps.advertiser.advertiseNow(client, id)
    },
  })

export const load = (deps: Pick<Deps, "settings">, open: Opener) => async ({ client, params }: acp.AgentRequestContext<acp.LoadSessionRequest>) => {
  const mode = await open(client, params, true)
  return { modes: Modes.state(mode), ...deps.settings.configOptions(params.sessionId) }
}

export const resume = (deps: Pick<Deps, "settings">, open: Opener) => async ({ client, params }: acp.AgentRequestContext<acp.ResumeSessionRequest>) => {
  const mode = await open(client, params, false)
  return { modes: Modes.state(mode), ...deps.settings.configOptions(params.sessionId) }
}
