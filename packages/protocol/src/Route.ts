/**
 * Which model a request goes to: `<provider>/<model>`, the form the user
 * writes (`--model`, the config's `model`) and the log keeps (`request/start`).
 * It is parsed once, here, into the one `Route` every package passes along.
 */

export interface Route {
  readonly provider: string
  readonly model: string
}

/** Splits `<provider>/<model>` at the first "/" (model ids may contain more); `undefined` when either side is empty. */
export const parseRoute = (text: string): Route | undefined => {
  const slash = text.indexOf("/")
  return slash <= 0 || slash === text.length - 1
    ? undefined
    : { provider: text.slice(0, slash), model: text.slice(slash + 1) }
}

/** The route as the user writes it. */
export const formatRoute = (route: Route): string => `${route.provider}/${route.model}`
