/**
 * `session/set_config_option` for the session's model (one of the configured
 * routes) and its reasoning effort (offered while its model reasons), and the
 * older `session/set_model` some clients still choose a model with. Each is
 * refused while a prompt of the session is in flight.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Effect } from "effect"
import { SessionId, SessionLog } from "@turnlog/protocol"
import * as Errors from "../../Errors.js"
import * as ModelOption from "../../ModelOption.js"
import * as ReasoningOption from "../../ReasoningOption.js"
import type { Deps } from "./Deps.js"

type Used = Pick<Deps, "loop" | "run" | "lifetime" | "connection" | "settings">

/** Switches the session to one of the configured models; answers the model chosen. */
const switchModel = (deps: Used) => async (id: string, value: unknown): Promise<string> => {
  const models = deps.settings.models
  if (!deps.connection.isOpen(id)) throw Errors.unknownSession(id)
  if (typeof value !== "string" || !models.includes(value)) {
    throw Errors.invalidParams(`model ${JSON.stringify(value)} is not one offered (${models.join(", ")})`)
  }
  if (deps.connection.isBusy(id)) throw Errors.busy(id)
  // The loop takes a session's model when it opens it: opened again, on the chosen route
  // (one let go is opened on it by its next prompt).
  await deps.lifetime.using(id, async () => {
    if (deps.lifetime.isReleased(id)) return
    await deps.run(deps.loop.load(SessionId.make(id), { model: value }).pipe(Effect.mapError(Errors.fromAgentError)))
  })
  deps.settings.setModel(id, value)
  return value
}

/** Logs the session's reasoning effort between turns (offered while its model reasons). */
const setReasoning = (deps: Used) => async (client: acp.AgentContext, id: string, value: unknown) => {
  if (!deps.connection.isOpen(id)) throw Errors.unknownSession(id)
  const route = deps.settings.routeOf(id)
  if (route === undefined || !deps.loop.reasons(route)) {
    throw Errors.invalidParams(`the session's model${route === undefined ? "" : ` ${route}`} does not reason: it takes no reasoning effort`)
  }
  const effort = ReasoningOption.parse(value)
  if (effort === undefined) {
    throw Errors.invalidParams(`reasoning effort ${JSON.stringify(value)} is not one offered (${SessionLog.REASONING_EFFORTS.join(", ")})`)
  }
  if (deps.connection.isBusy(id)) throw Errors.busy(id)
  await deps.lifetime.using(id, async () => {
    await deps.lifetime.ensureOpen(client, id)
    await deps.run(deps.loop.setReasoning(SessionId.make(id), effort).pipe(Effect.mapError(Errors.fromAgentError)))
  })
  deps.settings.setReasoning(id, effort)
}

export const setConfigOption = (deps: Used) => {
  const model = switchModel(deps)
  const reasoning = setReasoning(deps)
  return async ({ client, params }: acp.AgentRequestContext<acp.SetSessionConfigOptionRequest>) => {
    if (params.configId === ReasoningOption.ID) {
      await reasoning(client, params.sessionId, params.value)
      return { configOptions: deps.settings.configOptions(params.sessionId).configOptions ?? [] }
    }
    if (params.configId !== ModelOption.ID || deps.settings.models.length === 0) {
      if (!deps.connection.isOpen(params.sessionId)) throw Errors.unknownSession(params.sessionId)
      throw Errors.invalidParams(`unknown config option "${params.configId}"`)
    }
    await model(params.sessionId, params.value)
    return { configOptions: deps.settings.configOptions(params.sessionId).configOptions ?? [] }
  }
}

/** The older way some clients still choose a model (`models` in the session answers). */
export const setModel = (deps: Used) => {
  const model = switchModel(deps)
  return async ({ params }: acp.AgentRequestContext<ReturnType<typeof ModelOption.parseSetModel>>) => {
    await model(params.sessionId, params.modelId)
    return {}
  }
}
