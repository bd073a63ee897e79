/**
 * How full a session's context is and what its answers cost, from its log:
 * the tokens of the latest answer's request and answer against the model's
 * window, and each answer priced at its own model's rates (per million
 * tokens, a tier's rates when the request's input is above its threshold).
 */
import type { LlmAdapter } from "@turnlog/llm"
import type { SessionLog, Usage } from "@turnlog/protocol"

export interface ContextUsage {
  /** Tokens in context after the latest answer: its request's input (cached included) and its output. */
  readonly used: number
  /** The model's context window. */
  readonly size: number
  /** The session's answers so far, in US dollars; absent when no answer's model has prices. */
  readonly costUsd?: number
}

const inputOf = (usage: Usage) => usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0)

/** One answer's price at `prices`. */
export const priceOf = (usage: Usage, prices: LlmAdapter.ModelPrices): number => {
  const input = inputOf(usage)
  let rates: LlmAdapter.Rates = prices
  let above = -1
  for (const tier of prices.tiers ?? []) {
    if (input > tier.inputTokensAbove && tier.inputTokensAbove > above) {
      rates = tier
      above = tier.inputTokensAbove
    }
  }
  return (rates.input * usage.inputTokens + rates.output * usage.outputTokens +
    rates.cacheRead * (usage.cacheReadTokens ?? 0) + rates.cacheWrite * (usage.cacheWriteTokens ?? 0)) / 1_000_000
}

export const of = (
  events: Iterable<SessionLog.SessionEvent>,
  info: LlmAdapter.ModelInfo,
  infoOf: (provider: string, model: string) => LlmAdapter.ModelInfo | undefined,
): ContextUsage => {
  let used = 0
  let cost: number | undefined
  for (const event of events) {
    if (event.type !== "assistant/message" || event.data.usage === undefined) continue
    const usage = event.data.usage
    used = inputOf(usage) + usage.outputTokens
    const source = event.data.message.source
    const prices = source.kind === "model" ? infoOf(source.provider, source.model)?.cost : undefined
    if (prices !== undefined) cost = (cost ?? 0) + priceOf(usage, prices)
  }
  return { used, size: info.contextWindow, ...(cost === undefined ? {} : { costUsd: cost }) }
}
