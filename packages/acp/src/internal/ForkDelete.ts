/**
 * `session/delete` and the unstable `session/fork`. Delete removes a stored
 * session whole through the store (see `SessionStore.delete`): one open on
 * this connection is closed first (refused while a prompt of it is in
 * flight); one a live process holds is refused, naming the holder. Fork
 * copies a session up to its last ended turn into a new session (see `Fork`
 * in the store), which is then opened on this connection as `session/resume`
 * opens one, and answered like `session/new`.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Effect } from "effect"
import { isSessionId, SessionId, type SessionLog } from "@turnlog/protocol"
import { Fork, type SessionStore } from "@turnlog/store"
import * as Errors from "../Errors.js"
import type { Connection } from "./Connection.js"
import { requireAbsolute } from "./Cwd.js"
import type { Params as OpenParams } from "./Open.js"
import type { Run } from "./Runner.js"

export const FORK = "session/fork"

export interface ForkParams {
  readonly sessionId: string
  readonly cwd: string
  readonly mcpServers: ReadonlyArray<acp.McpServer>
}

/** `session/fork`'s params, or one sentence saying what is wrong with them. */
export const parseFork = (params: unknown): ForkParams => {
  const record = typeof params === "object" && params !== null ? params as Record<string, unknown> : {}
  if (typeof record.sessionId !== "string") throw Errors.invalidParams("session/fork needs a sessionId (a string)")
  if (typeof record.cwd !== "string") throw Errors.invalidParams("session/fork needs a cwd (an absolute path)")
  const servers = record.mcpServers ?? []
  if (!Array.isArray(servers)) throw Errors.invalidParams("session/fork: mcpServers is not a list")
  return { sessionId: record.sessionId, cwd: record.cwd, mcpServers: servers as Array<acp.McpServer> }
}

export interface Deps {
  readonly store: SessionStore.Service
  readonly run: Run
  /** The sessions open on this connection and its prompts in flight. */
  readonly connection: Pick<Connection, "isOpen" | "isBusy">
  /** Closes a session open on this connection, as `session/close` does. */
  readonly close: (id: string) => Promise<void>
  /** Opens a session on this connection without replaying it (`session/resume`); answers its mode. */
  readonly open: (client: acp.AgentContext, params: OpenParams) => Promise<SessionLog.Mode>
}

export const make = (deps: Deps) => {
  const remove = async (id: string): Promise<acp.DeleteSessionResponse> => {
    if (!isSessionId(id)) throw Errors.unknownSession(id)
    if (deps.connection.isBusy(id)) throw Errors.busy(id)
    if (deps.connection.isOpen(id)) await deps.close(id)
    await deps.run(deps.store.delete(SessionId.make(id)).pipe(Effect.mapError(Errors.fromAgentError)))
    return {}
  }

  const fork = async (client: acp.AgentContext, params: ForkParams): Promise<{ readonly id: string; readonly mode: SessionLog.Mode }> => {
    requireAbsolute(params.cwd)
    if (!isSessionId(params.sessionId)) throw Errors.unknownSession(params.sessionId)
    const forked = await deps.run(
      Fork.fork(deps.store, SessionId.make(params.sessionId), { cwd: params.cwd }).pipe(
        Effect.mapError((e) => e._tag === "ForkTurnOutOfRange" ? Errors.invalidParams(e.message) : Errors.fromAgentError(e)),
      ),
    )
    const mode = await deps.open(client, { sessionId: forked.id, cwd: params.cwd, mcpServers: params.mcpServers })
    return { id: forked.id, mode }
  }

  return { remove, fork }
}
