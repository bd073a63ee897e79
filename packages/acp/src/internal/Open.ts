/**
 * `session/load` (the stored history replayed first) and `session/resume`
 * (without it): the session opened for writing with the MCP servers the client
 * gives, its call ids counted from the log, its title and standing permission
 * answers taken up again.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Effect } from "effect"
import type { AgentLoop, Tools } from "@turnlog/agent"
import { SessionId, SessionLog } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"
import type { Service as CallIds } from "../CallIds.js"
import * as Errors from "../Errors.js"
import type { SessionMcp, SessionTools } from "../SessionMcp.js"
import * as Plan from "../Plan.js"
import * as Updates from "../Updates.js"
import type { attacher } from "./Attach.js"
import { requireAbsolute } from "./Cwd.js"
import * as SessionView from "./SessionView.js"
import type { Connection } from "./Connection.js"
import type { Lifetime } from "./Lifetime.js"
import { describeRecovery } from "./Recovery.js"
import type { Run } from "./Runner.js"

export interface Deps {
  readonly loop: AgentLoop.Service
  readonly run: Run
  readonly log: (line: string) => void
  readonly tools: Tools.Service
  readonly callIds: CallIds
  readonly mcpServers: SessionMcp
  readonly lifetime: Lifetime
  readonly attach: ReturnType<typeof attacher>
  readonly sendTitle: (client: acp.AgentContext, id: string, title: string) => Effect.Effect<void>
  /** The sessions open on the connection (as the client is shown them) and its prompts in flight. */
  readonly connection: Pick<Connection, "view" | "opened" | "isBusy">
  /** What the connection kept of an earlier opening (its model, its title sent). */
  readonly forget: (id: string) => void
  /** The MCP servers given, when the server does not start them. */
  readonly noteMcp: (servers: ReadonlyArray<acp.McpServer>) => void
  /** The session's commands, told before the answer. */
  readonly announce: (client: acp.AgentContext, id: string) => Promise<void>
  /** What the connection keeps of the session's settings, taken from its log (its reasoning effort). */
  readonly restore?: (id: string, events: ReadonlyArray<SessionLog.SessionEvent>) => void
}

export type Params = { readonly sessionId: string; readonly cwd: string; readonly mcpServers?: ReadonlyArray<acp.McpServer> }

/** Opens the session; answers with its mode as its log leaves it. */
export const make = (deps: Deps) => async (client: acp.AgentContext, params: Params, replay: boolean): Promise<SessionLog.Mode> => {
  const id = params.sessionId
  requireAbsolute(params.cwd)
  if (deps.connection.isBusy(id)) throw Errors.busy(id)
  return deps.lifetime.using(id, async () => {
    const servers = await deps.mcpServers.start(params.mcpServers ?? [], params.cwd)
    let own: SessionTools = {}
    const loaded = await servers.use(
      (tools) => (own = tools, deps.run(deps.loop.load(SessionId.make(id), tools).pipe(Effect.mapError(Errors.fromAgentError)))),
      () => id,
    )
    deps.forget(id)
    deps.noteMcp(params.mcpServers ?? [])
    for (const line of describeRecovery(id, loaded.recovery)) deps.log(line)
    const cwd = loaded.header.cwd
    if (cwd !== params.cwd) deps.log(`session ${id} runs in ${cwd}, its cwd when it was created`)
    const view: Updates.View = { cwd, tools: SessionView.tools(deps.tools, own.tools) }
    deps.callIds.forget(id)
    // Counted even when not replayed: later calls get ids no earlier call had.
    const history = Updates.fromHistory(loaded.events, view, deps.callIds.session(id).shown)
    if (replay) {
      for (const update of history) await client.notify("session/update", { sessionId: id, update })
      const plan = Plan.latest(loaded.events)
      if (plan !== undefined) await client.notify("session/update", { sessionId: id, update: plan })
    }
    await deps.run(deps.sendTitle(client, id, loaded.header.title ?? Updates.historyTitle(loaded.events)))
    deps.connection.opened(id, view)
    await deps.run(deps.attach(client, id, view, Updates.rulesOf(loaded.events)))
    await deps.announce(client, id)
    deps.lifetime.opened(id, params.mcpServers ?? [], params.cwd)
    deps.restore?.(id, loaded.events)
    return SessionLog.modeOf(loaded.events)
  })
}

/**
 * A session let go while unused and opened again by its next prompt: what the
 * connection keeps of it brought up to date with its log — call ids counted as
 * a reload would count them; what another process appended meanwhile (the
 * events from `shownUntil` on) sent to the client as a reload would show it,
 * so its view of the session has the turns run elsewhere before the prompt's
 * own; the standing answers taken up again.
 */
export const reopened =
  (deps: Pick<Deps, "connection" | "callIds" | "attach" | "log" | "run">) =>
  async (client: acp.AgentContext, id: string, loaded: SessionStore.LoadedSession, shownUntil: number): Promise<void> => {
    for (const line of describeRecovery(id, loaded.recovery)) deps.log(line)
    const view = deps.connection.view(id)
    if (view === undefined) return
    deps.callIds.forget(id)
    const shown = deps.callIds.session(id).shown
    const cut = loaded.events.findIndex((event) => event.seq >= shownUntil)
    const seen = cut < 0 ? loaded.events : loaded.events.slice(0, cut)
    Updates.fromHistory(seen, view, shown)
    if (cut >= 0) {
      for (const update of Updates.fromHistory(loaded.events.slice(cut), view, shown)) {
        await client.notify("session/update", { sessionId: id, update })
      }
    }
    await deps.run(deps.attach(client, id, view, Updates.rulesOf(loaded.events)))
  }
