/**
 * `initialize` (what the client offers is kept for its sessions' tools; the
 * answer says what the server is and offers) and `authenticate` (the one
 * method offered, answered once a model can run).
 */
import type * as acp from "@agentclientprotocol/sdk"
import * as Errors from "../../Errors.js"
import { initializeResponse } from "../ServerOptions.js"
import type { Deps } from "./Deps.js"

export const initialize = (deps: Pick<Deps, "options" | "connection">) => ({ params }: acp.AgentRequestContext<acp.InitializeRequest>) => {
  deps.connection.offered(params.clientCapabilities)
  return initializeResponse(deps.options.version, deps.options.auth === undefined ? [] : [deps.options.auth.method])
}

export const authenticate = (deps: Pick<Deps, "options" | "requireModel">) => async ({ params }: acp.AgentRequestContext<acp.AuthenticateRequest>) => {
  const auth = deps.options.auth
  if (auth === undefined || params.methodId !== auth.method.id) {
    throw Errors.invalidParams(`authentication method ${JSON.stringify(params.methodId)} is not one offered${auth === undefined ? "" : ` (${auth.method.id})`}`)
  }
  await deps.requireModel()
  return {}
}
