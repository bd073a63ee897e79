/**
 * What the server keeps of each session's settings, by session id, for every
 * connection it serves: its model when it is not the default (the first route
 * configured), its reasoning effort as its log leaves it when it is not `off`,
 * and the config options its answers carry from them.
 */
import { SessionLog } from "@turnlog/protocol"
import * as ModelOption from "../ModelOption.js"
import * as ReasoningOption from "../ReasoningOption.js"

/** `models`: the routes a session may switch between, the default first; `reasons`: whether a route's model reasons. */
export const make = (models: ReadonlyArray<string>, reasons: (route: string) => boolean) => {
  // A session's model when it is not the default, by session id.
  const chosenModel = new Map<string, string>()
  // A session's reasoning effort as its log leaves it, when it is not `off`.
  const chosenReasoning = new Map<string, SessionLog.ReasoningEffort>()

  /** The session's route: the one chosen, else the default (none when no model is configured). */
  const routeOf = (id: string): string | undefined => chosenModel.get(id) ?? models[0]

  /** The session's reasoning effort as its log leaves it. */
  const setReasoning = (id: string, effort: SessionLog.ReasoningEffort): void => {
    if (effort === "off") chosenReasoning.delete(id)
    else chosenReasoning.set(id, effort)
  }

  return {
    models,
    routeOf,
    /** The session's model when it is not the default. */
    modelOf: (id: string): string | undefined => chosenModel.get(id),
    /** The session now talks to `model`, one of `models`. */
    setModel: (id: string, model: string): void => {
      if (model === models[0]) chosenModel.delete(id)
      else chosenModel.set(id, model)
    },
    /** The session talks to the default model. */
    forgetModel: (id: string): void => {
      chosenModel.delete(id)
    },
    setReasoning,
    /** The reasoning effort its log leaves the session with, taken from its events. */
    restore: (id: string, events: ReadonlyArray<SessionLog.SessionEvent>): void => setReasoning(id, SessionLog.reasoningOf(events)),
    /** A new session: the default model, no reasoning effort. */
    reset: (id: string): void => {
      chosenModel.delete(id)
      chosenReasoning.delete(id)
    },
    /** The config options (and the older `models` state) a session's answers carry. */
    configOptions: (id: string) => {
      const current = routeOf(id)
      const offered = [
        ...(current === undefined ? [] : ModelOption.options(models, current)),
        // The effort is offered while the session's model reasons.
        ...(current !== undefined && reasons(current) ? [ReasoningOption.option(chosenReasoning.get(id) ?? "off")] : []),
      ]
      return {
        ...(offered.length === 0 ? {} : { configOptions: offered }),
        ...(current === undefined ? {} : { models: ModelOption.modelState(models, current) }),
      }
    },
  }
}

export type Settings = ReturnType<typeof make>
