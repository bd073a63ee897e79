/**
 * What a request handler of one connection works with: the server's services
 * and options, what the server keeps of each session's settings, the
 * connection's own state, and the pieces the connection's sessions share (their
 * lifetime, their MCP servers, their attachment to the client). Each handler
 * takes the part of it that it uses.
 */
import type * as acp from "@agentclientprotocol/sdk"
import type { Effect } from "effect"
import type { AgentLoop, Tools } from "@turnlog/agent"
import type { SessionStore } from "@turnlog/store"
import type { Service as CallIds } from "../../CallIds.js"
import type { SessionMcp } from "../../SessionMcp.js"
import type * as Advertise from "../Advertise.js"
import type { attacher, detacher } from "../Attach.js"
import type { Connection } from "../Connection.js"
import type { Lifetime } from "../Lifetime.js"
import type { Run } from "../Runner.js"
import type { Options } from "../ServerOptions.js"
import type { Settings } from "../Settings.js"

export interface Deps {
  readonly options: Options
  readonly loop: AgentLoop.Service
  readonly store: SessionStore.Service
  readonly tools: Tools.Service
  readonly callIds: CallIds
  /** Runs a handler's effect: a typed failure is thrown as the JSON-RPC error. */
  readonly run: Run
  /** Runs an effect as a promise (its failure rejects it). */
  readonly runPromise: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly log: (line: string) => void
  readonly settings: Settings
  readonly connection: Connection
  readonly lifetime: Lifetime
  readonly mcpServers: SessionMcp
  readonly attach: ReturnType<typeof attacher>
  readonly detach: ReturnType<typeof detacher>
  readonly advertiser: ReturnType<typeof Advertise.make>
  /** Names the session to the client once (`session_info_update`). */
  readonly sendTitle: (client: acp.AgentContext, id: string, title: string) => Effect.Effect<void>
  /** Logs the standing answers given during a turn. */
  readonly saveRules: (id: string) => Effect.Effect<void>
  /** Refuses a request that needs a model while none can run (see `Options.auth`). */
  readonly requireModel: () => Promise<void>
  /** Notes the MCP servers a client gave when the server does not start them. */
  readonly reportMcp: (servers: ReadonlyArray<acp.McpServer>) => void
}
