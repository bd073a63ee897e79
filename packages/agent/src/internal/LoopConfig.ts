/** The agent loop's settings as given (re-exported by `AgentLoop`), and the defaults a turn runs with. */
import { Effect } from "effect"
import { parseRoute, type Route } from "@turnlog/protocol"
import { InvalidModel } from "./LoopErrors.js"
import type { TurnConfig } from "./TurnContext.js"

export interface Config {
  /** `<provider>/<model>`: the default for new and loaded sessions. */
  readonly model: string
  /** Provider requests per turn before it ends with `max-steps` (default 50). */
  readonly maxSteps?: number
  /** The output limit sent with each request (absent: the adapter decides). */
  readonly maxTokens?: number
  /** The system prompt sent with each request. */
  readonly system?: string
  /** Quiet time after which a provider stream is abandoned as a transient `TIMEOUT` (default 600000). */
  readonly streamIdleTimeoutMs?: number
  /**
   * Characters an answer may stream (text, reasoning and tool-call arguments
   * together) before the request is abandoned and the turn ends with
   * `ANSWER_TOO_LARGE`, keeping what came before (default 16,777,216).
   */
  readonly maxAnswerChars?: number
  /**
   * `{ enabled, reserveTokens, keepRecentTokens, toolResultShare }`, each
   * optional (the defaults scale with the model's window); checked against the
   * model's window before each request, refused with a sentence naming the field.
   */
  readonly compaction?: CompactionSetting
  readonly retry?: {
    /** Retries of a transient failure that produced no content (default 3). */
    readonly maxRetries?: number
    /** Backoff before retry n is `baseDelayMs · 2^(n-1)` unless the provider said when (default 1000). */
    readonly baseDelayMs?: number
    /** Cap on the computed backoff; a provider's `retry-after` is honoured as given (default 30000). */
    readonly maxDelayMs?: number
  }
}

export interface CompactionSetting {
  readonly enabled?: boolean
  readonly reserveTokens?: number
  readonly keepRecentTokens?: number
  readonly toolResultShare?: number
}

/** `<provider>/<model>`, split at the first slash (model ids may contain more). */
export const parseModel = (model: string): Effect.Effect<Route, InvalidModel> => {
  const route = parseRoute(model)
  return route !== undefined
    ? Effect.succeed(route)
    : Effect.fail(new InvalidModel({ model, detail: `expected "<provider>/<model>"` }))
}

export const turnConfig = (config: Config): TurnConfig => ({
  maxSteps: config.maxSteps ?? 50,
  // Ten minutes: longer than a slow model thinks before its first token, and
  // longer than the HTTP client's own five minutes without a byte; this
  // catches what that does not, a connection kept alive that never delivers.
  streamIdleTimeoutMs: config.streamIdleTimeoutMs ?? 600_000,
  // Far above any model's output limit (a few hundred thousand characters),
  // and low enough that the answer, its raw chunks and their JSON stay well
  // within what one string and one write can hold.
  maxAnswerChars: config.maxAnswerChars ?? 16 * 1024 * 1024,
  retry: {
    maxRetries: config.retry?.maxRetries ?? 3,
    baseDelayMs: config.retry?.baseDelayMs ?? 1000,
    maxDelayMs: config.retry?.maxDelayMs ?? 30_000,
  },
  ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
  ...(config.system !== undefined ? { system: config.system } : {}),
  ...(config.compaction !== undefined ? { compaction: config.compaction } : {}),
})
