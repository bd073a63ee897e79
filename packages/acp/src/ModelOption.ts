/**
 * The model a session talks to, as a session config option: the routes the
 * agent was configured with (`<provider>/<model>`), offered as a select. A
 * choice takes effect at the session's next request; the log records each
 * request's route, and the history is replayed to the new provider (degrading
 * what it cannot take).
 */
import type * as acp from "@agentclientprotocol/sdk"

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
