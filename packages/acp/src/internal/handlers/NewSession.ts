/**
 * `session/new`: a session created in the client's cwd (a directory that
 * exists) with the MCP servers it gives, held by the client, on the default
 * model, its commands sent once the answer has gone out. Refused while it
 * would eat into the file descriptors the open sessions need (see
 * `Descriptors`).
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Effect } from "effect"
import { SessionLog } from "@turnlog/protocol"
import * as Errors from "../../Errors.js"
import * as Modes from "../../Modes.js"
import type * as SessionMcp from "../../SessionMcp.js"
import type * as Updates from "../../Updates.js"
import { requireDirectory } from "../Cwd.js"
import * as Descriptors from "../Descriptors.js"
import * as SessionView from "../SessionView.js"
import type { Deps } from "./Deps.js"

export const handler = (
  deps: Pick<
    Deps,
    "loop" | "run" | "tools" | "callIds" | "mcpServers" | "lifetime" | "attach" | "connection" | "settings" | "advertiser" | "requireModel" | "reportMcp"
  >,
) =>
  Descriptors.guarded(async ({ client, params }: acp.AgentRequestContext<acp.NewSessionRequest>) => {
    await deps.requireModel()
    requireDirectory(params.cwd)
    const servers = await deps.mcpServers.start(params.mcpServers, params.cwd)
    let own: SessionMcp.SessionTools = {}
    const id = await servers.use(
      (tools) => (own = tools, deps.run(deps.loop.createSession({ cwd: params.cwd, ...tools }).pipe(Effect.mapError(Errors.fromAgentError)))),
      (id) => id,
    )
    deps.reportMcp(params.mcpServers)
    const view: Updates.View = { cwd: params.cwd, tools: SessionView.tools(deps.tools, own.tools) }
    deps.callIds.forget(id)
    deps.connection.forgetTitle(id)
    deps.connection.opened(id, view)
    await deps.lifetime.using(id, async () => {
      await deps.run(deps.attach(client, id, view))
      deps.lifetime.opened(id, params.mcpServers, params.cwd)
    })
    deps.settings.reset(id)
    deps.advertiser.advertise(client, id)
    return { sessionId: id, modes: Modes.state(SessionLog.DEFAULT_MODE), ...deps.settings.configOptions(id) }
  })
