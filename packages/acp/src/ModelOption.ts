/**
 * The model a session talks to, as a session config option: the routes the
 * agent was configured with (`<provider>/<model>`), offered as a select. A
 * choice takes effect at the session's next request; the log records each
 * request's route, and the history is replayed to the new provider (degrading
 * what it cannot take).
 *
 * The same choice is offered the older way some clients still use: `models`
 * (`currentModelId`, `availableModels`) in the session answers and the
 * `session/set_model` request, which the SDK's schema no longer names.
 */
import type * as acp from "@agentclientprotocol/sdk"
import * as Errors from "./Errors.js"

export const ID = "model"

export const options = (models: ReadonlyArray<string>, current: string): Array<acp.SessionConfigOption> => [{
  id: ID,
  name: "Model",
  description: "The model the next request goes to",
  category: "model",
  type: "select",
  currentValue: current,
  options: models.map((route) => ({ value: route, name: route })),
}]

/** `models` in the session/new, load and resume answers. */
export const modelState = (models: ReadonlyArray<string>, current: string) => ({
  currentModelId: current,
  availableModels: models.map((route) => ({ modelId: route, name: route })),
})

export const SET_MODEL = "session/set_model"

/** `session/set_model`'s params, or one sentence saying what is wrong with them. */
export const parseSetModel = (params: unknown): { readonly sessionId: string; readonly modelId: unknown } => {
  const record = typeof params === "object" && params !== null ? params as Record<string, unknown> : {}
  if (typeof record.sessionId !== "string") throw Errors.invalidParams("session/set_model needs a sessionId (a string)")
  return { sessionId: record.sessionId, modelId: record.modelId }
}
