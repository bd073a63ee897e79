/**
 * Which pi-ai model a `<provider>/<model>` route names, and whether there is a
 * credential for it.
 *
 * Routes come from pi-ai's built-in catalog plus the custom providers of the
 * config (an OpenAI-compatible server, a proxy, a test's loopback): a custom
 * provider replaces a built-in one of the same id. A built-in provider's models
 * are made when a route first names it, and the whole catalog only when every
 * model is listed (or a route names a provider there is none of): a route of
 * the config's own providers is served without any of it. A custom provider's key
 * comes from the environment variable it names; a built-in provider's from
 * pi-ai's own lookup. Keys are read only to hand to pi-ai: they are never
 * logged, and no failure message carries one.
 */
import {
  type Api,
  type AuthContext,
  type Context,
  createModels,
  createProvider,
  defaultProviderAuthContext,
  envApiKeyAuth,
  type Model,
  type MutableModels,
  type ProviderStreams,
  type SimpleStreamOptions,
} from "@earendil-works/pi-ai"
import { anthropicMessagesApi } from "@earendil-works/pi-ai/api/anthropic-messages.lazy"
import { googleGenerativeAIApi } from "@earendil-works/pi-ai/api/google-generative-ai.lazy"
import { mistralConversationsApi } from "@earendil-works/pi-ai/api/mistral-conversations.lazy"
import { openAICompletionsApi } from "@earendil-works/pi-ai/api/openai-completions.lazy"
import { openAIResponsesApi } from "@earendil-works/pi-ai/api/openai-responses.lazy"
import { Data, Either, ParseResult, Schema } from "effect"
import { type Failure, formatRoute } from "@turnlog/protocol"
import { loadCatalog, PROVIDERS } from "./internal/BuiltinCatalog.js"

// ---------------------------------------------------------------------------
// Config

const NonEmpty = Schema.String.pipe(Schema.minLength(1, { message: () => "expected a non-empty string" }))
const Count = Schema.Number.pipe(
  Schema.int({ message: () => "expected a positive integer" }),
  Schema.positive({ message: () => "expected a positive integer" }),
)

/** The wire formats a custom provider can speak. */
export const CustomApi = Schema.Literal(
  "openai-completions",
  "openai-responses",
  "anthropic-messages",
  "google-generative-ai",
  "mistral-conversations",
)
export type CustomApi = typeof CustomApi.Type

export const CustomModel = Schema.Struct({
  id: NonEmpty,
  contextWindow: Schema.optionalWith(Count, { exact: true }),
  maxTokens: Schema.optionalWith(Count, { exact: true }),
  reasoning: Schema.optionalWith(Schema.Boolean, { exact: true }),
  /** What a prompt to the model may hold: `["text", "image"]` for one that sees images; default text only. */
  input: Schema.optionalWith(Schema.Array(Schema.Literal("text", "image")), { exact: true }),
})

// A user name or password in the URL would travel wherever the URL is shown or logged.
const BaseUrl = NonEmpty.pipe(Schema.filter((text) => {
  try {
    const url = new URL(text)
    return url.username === "" && url.password === ""
  } catch {
    return true
  }
}, { message: () => "a URL with a user name or password is refused; put the key in the environment variable that apiKeyEnv names" }))

export const CustomProvider = Schema.Struct({
  api: CustomApi,
  baseUrl: BaseUrl,
  /** The variable holding the key; absent for a server that needs none (a local one). */
  apiKeyEnv: Schema.optionalWith(NonEmpty, { exact: true }),
  models: Schema.Array(CustomModel),
})
export type CustomProvider = typeof CustomProvider.Type

// A provider id is the part of a route before the first "/".
const ProviderId = Schema.String.pipe(Schema.pattern(/^[^/\s]+$/))

export const Config = Schema.Struct({
  providers: Schema.optionalWith(Schema.Record({ key: ProviderId, value: CustomProvider }), { exact: true }),
})
export type Config = typeof Config.Type

export class ConfigError extends Data.TaggedError("PiAiConfigError")<{ readonly message: string }> {}

const formatIssue = (issue: ParseResult.ArrayFormatterIssue): string =>
  issue.path.length === 0 ? issue.message : `${issue.path.map(String).join(".")}: ${issue.message}`

/** The config, or an error naming each bad field (`providers.local.models.0.id: …`). */
export const decodeConfig = (input: unknown): Either.Either<Config, ConfigError> =>
  Schema.decodeUnknownEither(Config, { errors: "all", onExcessProperty: "error" })(input).pipe(
    Either.mapLeft((error) =>
      new ConfigError({
        message: `invalid pi-ai provider config: ${ParseResult.ArrayFormatter.formatErrorSync(error).map(formatIssue).join("; ")}`,
      })
    ),
  )

// ---------------------------------------------------------------------------
// Routes

const LAZY_APIS: Record<CustomApi, () => ProviderStreams> = {
  "openai-completions": openAICompletionsApi,
  "openai-responses": openAIResponsesApi,
  "anthropic-messages": anthropicMessagesApi,
  "google-generative-ai": googleGenerativeAIApi,
  "mistral-conversations": mistralConversationsApi,
}

const DEFAULT_CONTEXT_WINDOW = 128_000
const DEFAULT_MAX_TOKENS = 16_384

const customModel = (id: string, provider: CustomProvider, entry: typeof CustomModel.Type): Model<Api> => ({
  id: entry.id,
  name: entry.id,
  api: provider.api,
  provider: id,
  baseUrl: provider.baseUrl,
  input: entry.input?.includes("image") === true ? ["text", "image"] : ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  reasoning: entry.reasoning ?? false,
  contextWindow: entry.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
  maxTokens: entry.maxTokens ?? DEFAULT_MAX_TOKENS,
})

/** The pi-ai model a route names. */
export interface Resolved {
  /** `<provider>/<model>`. */
  readonly id: string
  readonly model: Model<Api>
}

export type Environment = Readonly<Record<string, string | undefined>>

export interface Credential {
  /** The key itself when there is one (ambient credentials have none). Never logged. */
  readonly secret?: string
}

export interface Router {
  /** Every provider's models: pi-ai's catalog with the config's providers in it (built on first use). */
  readonly models: MutableModels
  readonly resolve: (provider: string, model: string) => Either.Either<Resolved, Failure>
  /** Streams a request to a resolved route, through the collection that serves it. */
  readonly streamSimple: (route: Resolved, context: Context, options: SimpleStreamOptions) => ReturnType<MutableModels["streamSimple"]>
  /**
   * The credential's secret (so failure messages can be scrubbed of it), or the
   * `MISSING_CREDENTIAL` failure naming what to set.
   */
  readonly credential: (route: Resolved, signal: AbortSignal) => Promise<Either.Either<Credential, Failure>>
}

const envAuthContext = (env: Environment, base: AuthContext, seen?: Array<string>): AuthContext => ({
  env: async (name) => {
    seen?.push(name)
    // Trimmed: a key read from a CRLF file ends in "\r", which the request drops
    // but the failure-message redactor would then miss.
    const value = env[name]?.trim()
    return value !== undefined && value !== "" ? value : undefined
  },
  fileExists: (path) => base.fileExists(path),
})

/** The variables worth naming in a missing-credential message: the API-key ones when pi-ai checked any. */
const namesToSet = (checked: ReadonlyArray<string>): ReadonlyArray<string> => {
  const unique = [...new Set(checked)]
  const keys = unique.filter((name) => /_API_KEY$/.test(name))
  return keys.length > 0 ? keys : unique
}

/**
 * The auth of a custom provider without `apiKeyEnv`: always configured, with a
 * placeholder key — pi-ai's clients refuse to send a request with none, and a
 * server that needs no key ignores it.
 */
const keyless = (id: string) => ({
  name: `${id} (no key)`,
  resolve: () => Promise.resolve({ auth: { apiKey: NO_KEY }, source: "no key: the config names no apiKeyEnv" }),
})

/** What a keyless custom provider is sent as its key. */
export const NO_KEY = "no-key"

/** Where the built-in providers come from (a test counts what is made). */
export interface Builtins {
  /** pi-ai's `builtinModels`, for the whole catalog. */
  readonly catalog: typeof loadCatalog
  /** One built-in provider's factory, by id. */
  readonly providers: typeof PROVIDERS
}

/** The router of `config`'s routes and pi-ai's built-in ones. */
export const make = (config: Config, env: Environment = process.env, builtins: Builtins = { catalog: loadCatalog, providers: PROVIDERS }): Router => {
  const base = defaultProviderAuthContext()
  const authContext = envAuthContext(env, base)
  const custom = new Map<string, CustomProvider>(Object.entries(config.providers ?? {}))
  const configured = [...custom].map(([id, provider]) =>
    createProvider({
      id,
      baseUrl: provider.baseUrl,
      auth: { apiKey: provider.apiKeyEnv === undefined ? keyless(id) : envApiKeyAuth(`${id} API key`, [provider.apiKeyEnv]) },
      models: provider.models.map((entry) => customModel(id, provider, entry)),
      api: LAZY_APIS[provider.api](),
    })
  )
  // The routes' collection: the config's providers, and each built-in one a route has named; and
  // the whole catalog with the config's providers in it, made when first asked for.
  const routes = createModels({ authContext })
  for (const provider of configured) routes.setProvider(provider)
  let every: MutableModels | undefined
  const all = (): MutableModels => {
    if (every === undefined) {
      every = builtins.catalog()({ authContext })
      for (const provider of configured) every.setProvider(provider)
    }
    return every
  }
  /** The collection that serves `provider`'s routes: `routes` once it holds the provider, else the catalog. */
  const servedBy = (provider: string): MutableModels => {
    if (routes.getProvider(provider) !== undefined) return routes
    const factory = builtins.providers.get(provider)
    if (factory === undefined) return all()
    routes.setProvider(factory()())
    return routes
  }

  // Every request and every budget check asks for its route's model: looked up once per route.
  const resolved = new Map<string, Resolved>()
  const resolve = (provider: string, model: string): Either.Either<Resolved, Failure> => {
    const id = formatRoute({ provider, model })
    const kept = resolved.get(id)
    if (kept !== undefined) return Either.right(kept)
    const models = servedBy(provider)
    const found = models.getModel(provider, model)
    if (found !== undefined) {
      const route = { id, model: found }
      resolved.set(id, route)
      return Either.right(route)
    }
    const known = models.getProvider(provider) !== undefined
    return Either.left({
      code: "UNKNOWN_ROUTE",
      message: known
        ? `provider ${provider} has no model ${model}`
        : `unknown provider ${provider} (route ${provider}/${model})`,
    })
  }

  const credential = async (route: Resolved, signal: AbortSignal): Promise<Either.Either<Credential, Failure>> => {
    const provider = route.model.provider
    const declared = custom.get(provider)
    if (declared !== undefined) {
      if (declared.apiKeyEnv === undefined) return Either.right({})
      const value = env[declared.apiKeyEnv]?.trim()
      return value !== undefined && value !== ""
        ? Either.right({ secret: value })
        : Either.left({
          code: "MISSING_CREDENTIAL",
          message: `no credential for ${route.id}: set the environment variable ${declared.apiKeyEnv}`,
        })
    }
    const auth = servedBy(provider).getProvider(provider)?.auth.apiKey
    const checked: Array<string> = []
    const resolved = auth === undefined
      ? undefined
      : await auth.resolve({ ctx: envAuthContext(env, base, checked), signal })
    if (resolved !== undefined) {
      return Either.right(resolved.auth.apiKey === undefined ? {} : { secret: resolved.auth.apiKey })
    }
    const names = namesToSet(checked)
    return Either.left({
      code: "MISSING_CREDENTIAL",
      message: names.length > 0
        ? `no credential for ${route.id}: set the environment variable ${names.join(" or ")}`
        : `no credential for ${route.id}: provider ${provider} has no key configured`,
    })
  }

  return {
    get models() {
      return all()
    },
    resolve,
    streamSimple: (route, context, options) => servedBy(route.model.provider).streamSimple(route.model, context, options),
    credential,
  }
}
