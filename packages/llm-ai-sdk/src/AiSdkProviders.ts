/**
 * AI SDK language models from a provider config: which `@ai-sdk/*` package a
 * provider's wire format is served by, where it points, and the key it reads
 * from the environment. The config has the shape of the pi-ai adapter's
 * custom providers, so one provider entry serves either adapter:
 *
 *   { providers: { <id>: { api, baseUrl?, apiKeyEnv?, models: [{ id, contextWindow?, maxTokens? }] } } }
 *
 * `baseUrl` means what it means there (the Anthropic one without `/v1`).
 * Keys are read only to hand to the provider package; no failure names one.
 */
import { createAnthropic } from "@ai-sdk/anthropic"
import { createGoogleGenerativeAI } from "@ai-sdk/google"
import { createOpenAI } from "@ai-sdk/openai"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import type { LanguageModelV3 } from "@ai-sdk/provider"
import { Data, Either, ParseResult, Schema } from "effect"
import type { Failure } from "@turnlog/protocol"

const NonEmpty = Schema.String.pipe(Schema.minLength(1, { message: () => "expected a non-empty string" }))
const Count = Schema.Number.pipe(
  Schema.int({ message: () => "expected a positive integer" }),
  Schema.positive({ message: () => "expected a positive integer" }),
)

/** The wire formats, each served by one provider package. */
export const Api = Schema.Literal("anthropic-messages", "openai-responses", "openai-chat", "openai-completions", "google-generative-ai")
export type Api = typeof Api.Type

export const ModelEntry = Schema.Struct({
  id: NonEmpty,
  contextWindow: Schema.optionalWith(Count, { exact: true }),
  maxTokens: Schema.optionalWith(Count, { exact: true }),
  reasoning: Schema.optionalWith(Schema.Boolean, { exact: true }),
})

export const Provider = Schema.Struct({
  /** Which adapter a shared config gives this provider to; read by whoever chooses the adapter, ignored here. */
  adapter: Schema.optionalWith(Schema.Literal("pi-ai", "ai-sdk"), { exact: true }),
  api: Api,
  baseUrl: Schema.optionalWith(NonEmpty, { exact: true }),
  apiKeyEnv: Schema.optionalWith(NonEmpty, { exact: true }),
  models: Schema.Array(ModelEntry),
})
export type Provider = typeof Provider.Type

export const Config = Schema.Struct({
  providers: Schema.Record({ key: Schema.String.pipe(Schema.pattern(/^[^/\s]+$/)), value: Provider }),
})
export type Config = typeof Config.Type

export class ConfigError extends Data.TaggedError("AiSdkConfigError")<{ readonly message: string }> {}

const formatIssue = (issue: ParseResult.ArrayFormatterIssue): string =>
  issue.path.length === 0 ? issue.message : `${issue.path.map(String).join(".")}: ${issue.message}`

/** The config, or an error naming each bad field (`providers.local.api: …`). */
export const decodeConfig = (input: unknown): Either.Either<Config, ConfigError> =>
  Schema.decodeUnknownEither(Config, { errors: "all", onExcessProperty: "error" })(input).pipe(
    Either.mapLeft((error) =>
      new ConfigError({
        message: `invalid ai-sdk provider config: ${ParseResult.ArrayFormatter.formatErrorSync(error).map(formatIssue).join("; ")}`,
      })
    ),
  )

/** Where a key is read when the provider names no variable: each package's own convention. */
export const DEFAULT_KEY_ENV: Record<Api, string | undefined> = {
  "anthropic-messages": "ANTHROPIC_API_KEY",
  "openai-responses": "OPENAI_API_KEY",
  "openai-chat": "OPENAI_API_KEY",
  "openai-completions": undefined,
  "google-generative-ai": "GOOGLE_GENERATIVE_AI_API_KEY",
}

export type Environment = Readonly<Record<string, string | undefined>>

export interface Resolved {
  readonly model: LanguageModelV3
  /** The key handed to the provider package, for redaction. */
  readonly secret: string | undefined
  readonly contextWindow: number | undefined
  readonly maxTokens: number | undefined
}

const withoutSlash = (url: string) => url.replace(/\/+$/, "")

/** A language model of one provider package, or the failure that stops the request before any HTTP call. */
export const languageModel = (
  id: string,
  provider: Provider,
  modelId: string,
  env: Environment,
  fetch?: typeof globalThis.fetch,
): Either.Either<LanguageModelV3, Failure> => {
  const keyEnv = provider.apiKeyEnv ?? DEFAULT_KEY_ENV[provider.api]
  const apiKey = keyEnv === undefined ? undefined : env[keyEnv]
  if (keyEnv !== undefined && (apiKey === undefined || apiKey === "")) {
    return Either.left({ code: "MISSING_CREDENTIAL", message: `no API key for provider "${id}": set ${keyEnv}` })
  }
  const base = provider.baseUrl === undefined ? undefined : withoutSlash(provider.baseUrl)
  const common = { ...(apiKey === undefined ? {} : { apiKey }), ...(fetch === undefined ? {} : { fetch }) }
  switch (provider.api) {
    case "anthropic-messages":
      return Either.right(
        createAnthropic({
          ...common,
          ...(base === undefined ? {} : { baseURL: base.endsWith("/v1") ? base : `${base}/v1` }),
        })(modelId),
      )
    case "openai-responses":
    case "openai-chat": {
      const openai = createOpenAI({ ...common, ...(base === undefined ? {} : { baseURL: base }) })
      return Either.right(provider.api === "openai-responses" ? openai.responses(modelId) : openai.chat(modelId))
    }
    case "openai-completions":
      if (base === undefined) return Either.left({ code: "INVALID_REQUEST", message: `provider "${id}" (openai-completions) needs a baseUrl` })
      return Either.right(createOpenAICompatible({ ...common, name: id, baseURL: base, includeUsage: true }).chatModel(modelId))
    case "google-generative-ai":
      return Either.right(createGoogleGenerativeAI({ ...common, ...(base === undefined ? {} : { baseURL: base }) })(modelId))
  }
}

/** Routes of a config: `<provider>/<model>` to a model (made once per route and kept). */
export const make = (config: Config, env: Environment, fetch?: typeof globalThis.fetch) => {
  const made = new Map<string, Resolved>()
  const resolve = (providerId: string, modelId: string): Either.Either<Resolved, Failure> => {
    const route = `${providerId}/${modelId}`
    const found = made.get(route)
    if (found !== undefined) return Either.right(found)
    const provider = config.providers[providerId]
    if (provider === undefined) {
      return Either.left({ code: "UNKNOWN_ROUTE", message: `no ai-sdk provider "${providerId}" in the config` })
    }
    const entry = provider.models.find((m) => m.id === modelId)
    if (entry === undefined) {
      return Either.left({ code: "UNKNOWN_ROUTE", message: `provider "${providerId}" has no model "${modelId}"` })
    }
    return Either.map(languageModel(providerId, provider, modelId, env, fetch), (model) => {
      const keyEnv = provider.apiKeyEnv ?? DEFAULT_KEY_ENV[provider.api]
      const resolved: Resolved = {
        model,
        secret: keyEnv === undefined ? undefined : env[keyEnv],
        contextWindow: entry.contextWindow,
        maxTokens: entry.maxTokens,
      }
      made.set(route, resolved)
      return resolved
    })
  }
  return { resolve }
}
