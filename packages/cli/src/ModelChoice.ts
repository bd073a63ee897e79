/**
 * Which model a command talks to: `--model`, else the config's `model`, else
 * — with a provider key in the environment — that provider's default model,
 * else the scripted demo model — which only `turnlog demo` lets answer:
 * `run` refuses the demo choice as a usage error, `acp` answers
 * `auth_required` until a model can run. A scripted-model file, when
 * one is configured, replaces the provider (tests and scenarios).
 */
import { Either, Option } from "effect"
import { UsageError } from "./CliError.js"
import { KEYED_PROVIDERS } from "./KeyedProviders.js"
import { parseRoute } from "@turnlog/protocol"
import { type Environment, ROUTE_HINT, type Settings } from "./Settings.js"

/** The route the keyless demo model answers as. */
export const DEMO_ROUTE = "turnlog/demo"
/** The route a scripted-model file answers as when no model is named. */
export const SCRIPTED_ROUTE = "turnlog/scripted"

/** Providers whose key alone picks a model, in this order, with the model it picks. */
export { KEYED_PROVIDERS }

export const KEY_HINT = `set ${KEYED_PROVIDERS.map((p) => p.env).join(", ")} (or another provider's key with --model <provider>/<model>)`

export type Choice =
  | { readonly kind: "provider"; readonly route: string; readonly note?: string }
  | { readonly kind: "script"; readonly route: string; readonly file: string }
  | { readonly kind: "demo"; readonly route: string; readonly note: string }

const checked = (route: string, from: string): Either.Either<string, UsageError> =>
  parseRoute(route) === undefined
    ? Either.left(new UsageError({ message: `${from} "${route}" is not a model route: expected ${ROUTE_HINT}` }))
    : Either.right(route)

export const choose = (
  flag: Option.Option<string>,
  settings: Settings,
  env: Environment = process.env,
): Either.Either<Choice, UsageError> =>
  Either.gen(function*() {
    const named = Option.isSome(flag)
      ? yield* checked(flag.value, "--model")
      : settings.config.model
    if (settings.scriptedModel !== undefined) {
      return { kind: "script", route: named ?? SCRIPTED_ROUTE, file: settings.scriptedModel } as const
    }
    if (named !== undefined) return { kind: "provider", route: named } as const
    const keyed = KEYED_PROVIDERS.find((p) => (env[p.env] ?? "").trim() !== "")
    if (keyed !== undefined) {
      return {
        kind: "provider",
        route: keyed.route,
        note: `${keyed.env} is set: using ${keyed.route} (choose another with --model or the config's "model")`,
      } as const
    }
    return {
      kind: "demo",
      route: DEMO_ROUTE,
      note: `no provider key in the environment, so the scripted demo model answers; to use a real model, ${KEY_HINT}`,
    } as const
  })
