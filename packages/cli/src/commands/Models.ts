/**
 * `turnlog models`: the routes `--model` takes, one a line as
 * `<provider>/<model>` with the context window and output limit — pi-ai's
 * models whose provider has a credential set, and every model of the
 * config's own providers — and the did-you-mean for a route no provider
 * serves.
 */
import { Effect } from "effect"
import type { PiAiRouting } from "@turnlog/llm-pi-ai"
import * as Layers from "../Layers.js"
import { out, rawErr } from "../Output.js"
import { tokens } from "../RunView.js"
import { Invocation, type Settings } from "../Settings.js"
import { distance } from "../UnknownOptions.js"

interface Row {
  readonly route: string
  readonly window: number
  readonly output: number
}

/** The rows, the config's providers first, each provider's models in the catalog's order. */
export const rows = async (router: PiAiRouting.Router, custom: ReadonlyArray<string>): Promise<Array<Row>> => {
  // One provider at a time: asked all at once, pi-ai hangs a listener per provider on one signal.
  const keyed: Array<string> = []
  for (const provider of router.models.getProviders()) {
    if (custom.includes(provider.id)) continue
    if ((await router.models.checkAuth(provider.id).catch(() => undefined)) !== undefined) keyed.push(provider.id)
  }
  {
    const models = [...custom, ...keyed].flatMap((p) => router.models.getModels(p))
    const seen = new Set<string>()
    const result: Array<Row> = []
    for (const m of models) {
      const route = `${m.provider}/${m.id}`
      if (seen.has(route)) continue
      seen.add(route)
      result.push({ route, window: m.contextWindow, output: m.maxTokens })
    }
    return result
  }
}

export const render = (list: ReadonlyArray<Row>): string => {
  if (list.length === 0) return ""
  const width = Math.max(...list.map((r) => r.route.length))
  const win = Math.max(...list.map((r) => tokens(r.window).length))
  return list.map((r) => `${r.route.padEnd(width)}  ${tokens(r.window).padStart(win)} window  ${tokens(r.output)} output`)
    .join("\n") + "\n"
}

/**
 * For a route no provider serves: ` (did you mean <route>?)` naming the
 * closest model of the same provider (or the closest provider), else "".
 */
export const didYouMean = (router: PiAiRouting.Router, provider: string, model: string): string => {
  const known = router.models.getProvider(provider) !== undefined
  const candidates = known
    ? router.models.getModels(provider).map((m) => m.id)
    : router.models.getProviders().map((p) => p.id)
  const typed = known ? model : provider
  let best: string | undefined
  let score = Number.POSITIVE_INFINITY
  for (const c of candidates) {
    const d = distance(typed, c)
    if (d < score) [best, score] = [c, d]
  }
  // Close enough to be a typo: a third of the word at most.
  if (best === undefined || score > Math.max(2, Math.floor(typed.length / 3))) return ""
  return ` (did you mean ${known ? `${provider}/${best}` : `${best}/${model}`}?)`
}

/** The rows `turnlog models` prints: what `--model`, and the interactive session's `/model`, offer. */
export const listed = (settings: Settings) =>
  Effect.gen(function*() {
    const configs = yield* Layers.providerConfig(settings)
    const { PiAiRouting } = yield* Effect.promise(() => import("@turnlog/llm-pi-ai"))
    const router = PiAiRouting.make(configs.piAi, (yield* Invocation).env)
    return yield* Effect.promise(() => rows(router, Object.keys(configs.piAi.providers ?? {})))
  })

export const models = (settings: Settings) =>
  Effect.gen(function*() {
    const list = yield* listed(settings)
    yield* out(render(list))
    if (list.length === 0) {
      yield* rawErr("turnlog: no models: no provider key is set and the config declares no providers\n")
    }
  })
