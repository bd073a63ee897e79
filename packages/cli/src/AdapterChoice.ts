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

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

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
    else if (adapter === "pi-ai") piAi[id] = rest
    else {
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
