/**
 * Context compaction, the pure part: the settings (defaults that scale with
 * the model's context window, user settings checked with a sentence naming
 * the bad field), the decision before each request, and re-exported from
 * their own modules the token estimate, the cut point, the summariser's
 * requests and the request-side cut of oversized tool results.
 *
 * The loop, before each request:
 *   const e = Compaction.estimate(events, { fixedTokens, toolResultLimitChars })
 *   if (Compaction.decide(e.tokens, window, settings).compact) {
 *     const cut = Compaction.selectCut(events, settings.keepRecentTokens, limit)
 *     let summary = cut.previousSummary
 *     for (const part of Compaction.summaryParts(cut, window, settings.reserveTokens))
 *       summary = await model(Compaction.summaryRequest(part, summary, settings.reserveTokens))
 *     log context/compaction { summary, firstKeptSeq: cut.firstKeptSeq, tokensBefore: e.tokens,
 *       tokensAfter: Compaction.tokensAfter(cut, summary, fixedTokens), provider, model }
 *   }
 *   send Compaction.cutToolResults(History.fromEvents(events), limit)
 */
import { Data, Either } from "effect"
import { MessageId } from "@turnlog/protocol"
import type { Cut } from "./internal/cutPoint.js"
import { summaryText } from "./History.js"
import { CHARS_PER_TOKEN, messageTokens } from "./internal/tokens.js"

export { type Cut, cutPoints, selectCut } from "./internal/cutPoint.js"
export { summaryMaxTokens, summaryParts, summaryRequest, type SummaryRequest } from "./internal/summarise.js"
export { cutText, cutToolResults } from "./internal/textCut.js"
export {
  CHARS_PER_TOKEN,
  contextTokens,
  type Estimate,
  estimate,
  type EstimateOptions,
  messagesTokens,
  messageTokens,
  tokensOfChars,
} from "./internal/tokens.js"

export interface Settings {
  readonly enabled: boolean
  /** Tokens every request keeps free for its answer: a request estimated past `contextWindow − reserveTokens` compacts first. */
  readonly reserveTokens: number
  /** About how many tokens of the most recent history a compaction keeps verbatim. */
  readonly keepRecentTokens: number
  /** A tool result larger than this share of the context window is sent cut (head and tail kept). */
  readonly toolResultShare: number
}

export const DEFAULT_TOOL_RESULT_SHARE = 0.25

/** The defaults for a model: reserve the smaller of 16,384 tokens and a quarter of the window; keep the smaller of 20,000 and two fifths. */
export const defaults = (contextWindow: number): Settings => ({
  enabled: true,
  reserveTokens: Math.min(16_384, Math.floor(contextWindow / 4)),
  keepRecentTokens: Math.min(20_000, Math.floor((contextWindow * 2) / 5)),
  toolResultShare: DEFAULT_TOOL_RESULT_SHARE,
})

/** A user's `compaction` setting refused: `field` names it, `message` says why in one sentence. */
export class InvalidSettings extends Data.TaggedError("InvalidCompactionSettings")<{
  readonly field: string
  readonly message: string
}> {}

const FIELDS = ["enabled", "reserveTokens", "keepRecentTokens", "toolResultShare"] as const

const shown = (value: unknown): string => (typeof value === "string" ? JSON.stringify(value) : String(value))
const isTokens = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value > 0

/**
 * The settings for a model of `contextWindow` tokens from the user's
 * `compaction` value (absent: the defaults): each field given replaces its
 * default. Refused, naming the field: an unknown field, a wrong type, a
 * reserve over half the window, or a reserve and kept history that together
 * leave less than a quarter of the window for the summary and what follows.
 */
export const settingsFor = (input: unknown, contextWindow: number): Either.Either<Settings, InvalidSettings> => {
  const base = defaults(contextWindow)
  if (input === undefined || input === null) return Either.right(base)
  const refuse = (field: string, message: string) => Either.left(new InvalidSettings({ field, message }))
  if (typeof input !== "object" || Array.isArray(input)) {
    return refuse("compaction", `compaction must be an object with ${FIELDS.join(", ")}, got ${shown(input)}`)
  }
  const given = input as Record<string, unknown>
  for (const key of Object.keys(given)) {
    if (!(FIELDS as ReadonlyArray<string>).includes(key)) {
      return refuse(`compaction.${key}`, `compaction.${key} is not a setting: the settings are ${FIELDS.join(", ")}`)
    }
  }
  const { enabled, keepRecentTokens, reserveTokens, toolResultShare } = given
  if (enabled !== undefined && typeof enabled !== "boolean") {
    return refuse("compaction.enabled", `compaction.enabled must be true or false, got ${shown(enabled)}`)
  }
  for (const [name, value] of [["reserveTokens", reserveTokens], ["keepRecentTokens", keepRecentTokens]] as const) {
    if (value !== undefined && !isTokens(value)) {
      return refuse(`compaction.${name}`, `compaction.${name} must be a whole number of tokens above 0, got ${shown(value)}`)
    }
  }
  if (
    toolResultShare !== undefined &&
    (typeof toolResultShare !== "number" || !(toolResultShare > 0) || toolResultShare > 1)
  ) {
    return refuse(
      "compaction.toolResultShare",
      `compaction.toolResultShare must be a share of the context window above 0 and at most 1, got ${shown(toolResultShare)}`,
    )
  }
  const settings: Settings = {
    enabled: enabled ?? base.enabled,
    reserveTokens: (reserveTokens as number | undefined) ?? base.reserveTokens,
    keepRecentTokens: (keepRecentTokens as number | undefined) ?? base.keepRecentTokens,
    toolResultShare: toolResultShare ?? base.toolResultShare,
  }
  const half = Math.floor(contextWindow / 2)
  if (settings.reserveTokens > half) {
    return refuse(
      "compaction.reserveTokens",
      `compaction.reserveTokens is ${settings.reserveTokens}, more than half of the model's ${contextWindow}-token context window: use at most ${half}`,
    )
  }
  const room = Math.floor((contextWindow * 3) / 4)
  if (settings.reserveTokens + settings.keepRecentTokens > room) {
    // name the field the user set (keepRecentTokens when both were)
    const field = keepRecentTokens !== undefined || reserveTokens === undefined ? "keepRecentTokens" : "reserveTokens"
    return refuse(
      `compaction.${field}`,
      `compaction.${field} is ${
        settings[field]
      }, and keepRecentTokens (${settings.keepRecentTokens}) plus reserveTokens (${settings.reserveTokens}) must leave a quarter of the model's ${contextWindow}-token context window for the summary and what follows it: keep the two at most ${room} together`,
    )
  }
  return Either.right(settings)
}

export type Decision =
  | { readonly compact: false; readonly answerBudget: number }
  | {
    readonly compact: true
    /**
     * `answer-budget`: the answer would get less than a quarter of the
     * reserve (the request would be squeezed to a few words). `threshold`:
     * the estimate is past `contextWindow − reserveTokens`, with room still
     * for an answer. Every `answer-budget` case is past the threshold too; the
     * reason says how urgent it is.
     */
    readonly reason: "threshold" | "answer-budget"
    readonly answerBudget: number
  }

/** Whether a request estimated at `estimateTokens` compacts first. */
export const decide = (estimateTokens: number, contextWindow: number, settings: Settings): Decision => {
  const answerBudget = contextWindow - estimateTokens
  if (!settings.enabled) return { compact: false, answerBudget }
  if (answerBudget < settings.reserveTokens / 4) return { compact: true, reason: "answer-budget", answerBudget }
  if (estimateTokens > contextWindow - settings.reserveTokens) {
    return { compact: true, reason: "threshold", answerBudget }
  }
  return { compact: false, answerBudget }
}

/** The characters a tool result may take in a request before it is cut. */
export const toolResultLimitChars = (contextWindow: number, settings: Settings): number =>
  Math.floor(contextWindow * settings.toolResultShare * CHARS_PER_TOKEN)

/** The estimate of a request after a compaction with `summary` at `cut`: its `tokensAfter`. */
export const tokensAfter = (cut: Cut, summary: string, fixedTokens: number = 0): number =>
  fixedTokens +
  messageTokens({ id: MessageId.make("summary"), role: "user", content: [{ type: "text", text: summaryText(summary) }], source: { kind: "system" } }) +
  cut.keptTokens
