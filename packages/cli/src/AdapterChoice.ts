/**
 * Which adapter serves each provider of the config: a provider entry's
 * `"adapter"` is `"pi-ai"` (the default) or `"ai-sdk"`. The pi-ai adapter
 * gets its entries without the field (its schema admits no other key); the
 * AI SDK adapter gets the entries that name it. Each adapter's own schema
 * then checks its entries, so a mistake is reported in the adapter's terms.
 */
import { Either } from "effect"
import { clip, clipQuoted } from "./Clip.js"

export type Kind = "pi-ai" | "ai-sdk"
export const KINDS: ReadonlyArray<Kind> = ["pi-ai", "ai-sdk"]

export interface Split {
  /** What the pi-ai adapter reads as its `providers` (left as it was when it is not an object: pi-ai says why). */
  readonly piAi: unknown
  /** The providers the AI SDK adapter serves, by id. */
  readonly aiSdk: Readonly<Record<string, unknown>>
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** The config's `providers` for each adapter, or the sentence naming a bad `adapter` field. */
export const split = (providers: unknown): Either.Either<Split, string> => {
  if (!isRecord(providers)) return Either.right({ piAi: providers, aiSdk: {} })
  const piAi: Record<string, unknown> = {}
  const aiSdk: Record<string, unknown> = {}
  const issues: Array<string> = []
  for (const [id, entry] of Object.entries(providers)) {
    if (!isRecord(entry) || !("adapter" in entry)) {
      piAi[id] = entry
      continue
    }
    const { adapter, ...rest } = entry
    if (adapter === "ai-sdk") aiSdk[id] = entry
    // `{ "adapter": "pi-ai" }` alone says what a built-in provider already is.
    else if (adapter === "pi-ai") {
      if (Object.keys(rest).length > 0) piAi[id] = rest
    } else {
      issues.push(clipQuoted(
        `providers.${clip(id)}.adapter: expected "pi-ai" or "ai-sdk", got ${JSON.stringify(adapter) ?? String(adapter)}`,
      ))
    }
  }
  return issues.length === 0 ? Either.right({ piAi, aiSdk }) : Either.left(issues.join("; "))
}

/** The adapter kind whose replay envelope `replayState` is, when it names one. */
export const kindOf = (replayState: unknown): string | undefined => {
  if (!isRecord(replayState)) return undefined
  const response = replayState["response"]
  return isRecord(response) && typeof response["kind"] === "string" ? response["kind"] : undefined
}

/**
 * The built-in providers the AI SDK adapter can serve by name alone
 * (`"anthropic": { "adapter": "ai-sdk" }`): the wire, and the variable the key
 * is read from — the one turnlog reads for that provider under pi-ai.
 */
export const BUILTIN: Readonly<Record<string, { readonly api: string; readonly apiKeyEnv: string }>> = {
  anthropic: { api: "anthropic-messages", apiKeyEnv: "ANTHROPIC_API_KEY" },
  openai: { api: "openai-responses", apiKeyEnv: "OPENAI_API_KEY" },
  google: { api: "google-generative-ai", apiKeyEnv: "GEMINI_API_KEY" },
}

export interface CatalogModel {
  readonly id: string
  readonly contextWindow: number
  readonly maxTokens: number
  readonly reasoning: boolean
}

/**
 * The AI SDK adapter's entries with each built-in provider named without an
 * `api` completed: its wire, its key's variable (unless the entry names one)
 * and the models of pi-ai's catalog for it. Other entries are left as they are.
 */
export const withBuiltins = (
  aiSdk: Readonly<Record<string, unknown>>,
  catalog: (provider: string) => ReadonlyArray<CatalogModel>,
): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(aiSdk).map(([id, entry]) => {
      const builtin = BUILTIN[id]
      if (builtin === undefined || !isRecord(entry) || "api" in entry) return [id, entry]
      const models = catalog(id).map(({ id, contextWindow, maxTokens, reasoning }) => ({ id, contextWindow, maxTokens, reasoning }))
      return [id, { ...builtin, models, ...entry }]
    }),
  )

/** The entries of `providers` whose config entry lists its own models (not filled in by `withBuiltins`). */
export const declared = <A>(providers: Readonly<Record<string, A>>, config: unknown): Record<string, A> =>
  Object.fromEntries(
    Object.entries(providers).filter(([id]) => {
      const entry = isRecord(config) ? config[id] : undefined
      return isRecord(entry) && "models" in entry
    }),
  )
