/**
 * The models a session may be switched to, for an editor's model list and the
 * interactive session's `/model` completion.
 */
import { Effect } from "effect"
import * as Layers from "./Layers.js"
import * as ModelChoice from "./ModelChoice.js"
import type { Settings } from "./Settings.js"

/**
 * The models an editor may switch a session to (and the interactive session's
 * `/model` completes): the one chosen (the default), every model of the
 * config's providers, and the built-in providers whose key is set.
 */
export const modelsOffered = (settings: Settings, choice: ModelChoice.Choice) =>
  Effect.gen(function*() {
    const routes = [choice.route]
    if (settings.config.providers !== undefined) {
      const config = yield* Layers.providerConfig(settings)
      for (const [provider, declared] of Object.entries(config.providers ?? {})) {
        for (const model of declared.models) routes.push(`${provider}/${model.id}`)
      }
    }
    if (choice.kind === "provider") {
      for (const keyed of ModelChoice.KEYED_PROVIDERS) {
        if (process.env[keyed.env] !== undefined && process.env[keyed.env] !== "") routes.push(keyed.route)
      }
    }
    return [...new Set(routes)]
  })
