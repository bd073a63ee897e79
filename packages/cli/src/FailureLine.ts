/**
 * How a failed turn is said to a person (`run` on stderr, the interactive
 * session in its view): the provider's message made readable
 * (`FailureMessage.readable`) and its code; a key the provider refused
 * (`AUTH`) also names the variable it was read from, when that can be said.
 */
import { type Failure, FailureMessage } from "@turnlog/protocol"
import { KEYED_PROVIDERS } from "./KeyedProviders.js"

/**
 * The variable a route's key is read from: its config provider's `apiKeyEnv`,
 * else that of a built-in provider whose key alone picks a model; undefined
 * when neither says (a provider with another kind of credential).
 */
export const keyVariable = (providers: unknown, route: string): string | undefined => {
  const provider = route.slice(0, route.indexOf("/"))
  const entry = typeof providers === "object" && providers !== null ? (providers as Record<string, unknown>)[provider] : undefined
  const configured = typeof entry === "object" && entry !== null ? (entry as { readonly apiKeyEnv?: unknown }).apiKeyEnv : undefined
  if (typeof configured === "string" && configured !== "") return configured
  return KEYED_PROVIDERS.find((keyed) => keyed.route.startsWith(`${provider}/`))?.env
}

/** `the turn failed: …`; `variable` is where the route's key comes from (see `keyVariable`). */
export const turnFailed = (failure: Failure | undefined, variable?: string): string => {
  if (failure === undefined) return "the turn failed: no cause reported"
  const refused = failure.code === "AUTH" && variable !== undefined ? `; check the key in ${variable}` : ""
  return `the turn failed: ${FailureMessage.readable(failure.message)} (${failure.code})${refused}`
}
