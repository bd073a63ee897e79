/**
 * One `LlmAdapter` over several: each request goes to the adapter that serves
 * its provider, every other provider to the default one. The config picks an
 * adapter per provider (`"adapter": "ai-sdk"`), and a session moves between
 * them when its route does; each adapter reads the history through its own
 * codec, so its own messages replay natively and the others degrade.
 */
import { Context, Effect, Layer } from "effect"
import { LlmAdapter, type Service } from "./LlmAdapter.js"

export interface Routes {
  /** The adapter of every provider not named in `byProvider`. */
  readonly fallback: Service
  /** Provider id → the adapter that serves it. */
  readonly byProvider: ReadonlyMap<string, Service>
}

export const make = (routes: Routes): Service => {
  const of = (provider: string): Service => routes.byProvider.get(provider) ?? routes.fallback
  return {
    stream: (request) => of(request.provider).stream(request),
    modelInfo: (provider, model) => of(provider).modelInfo?.(provider, model),
    answerRoom: (request) => of(request.provider).answerRoom?.(request) ?? Effect.succeed(undefined),
    unavailable: (provider, model) => of(provider).unavailable?.(provider, model) ?? Effect.succeed(undefined),
  }
}

/**
 * The default adapter's layer, with each route's adapter built beside it
 * (from its own layer); with no route, the default layer unchanged.
 */
export const layer = <E, R>(
  fallback: Layer.Layer<LlmAdapter, E, R>,
  routes: ReadonlyArray<{ readonly providers: ReadonlyArray<string>; readonly adapter: Layer.Layer<LlmAdapter, E, R> }>,
): Layer.Layer<LlmAdapter, E, R> => {
  const used = routes.filter((route) => route.providers.length > 0)
  if (used.length === 0) return fallback
  const serviceOf = (adapter: Layer.Layer<LlmAdapter, E, R>) => Effect.map(Layer.build(adapter), Context.get(LlmAdapter))
  return Layer.scoped(
    LlmAdapter,
    Effect.gen(function*() {
      const byProvider = new Map<string, Service>()
      for (const route of used) {
        const service = yield* serviceOf(route.adapter)
        for (const provider of route.providers) byProvider.set(provider, service)
      }
      return make({ fallback: yield* serviceOf(fallback), byProvider })
    }),
  )
}
