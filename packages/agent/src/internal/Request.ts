/**
 * The provider request of a step, made from the log as it stands: the whole
 * history (from the latest compaction), the session's tools and settings.
 */
import { Chunk } from "effect"
import { Compaction, History } from "@turnlog/history"
import type { LlmAdapter } from "@turnlog/llm"
import { SessionLog } from "@turnlog/protocol"
import type { TurnDeps } from "./TurnContext.js"

export const of = (
  deps: TurnDeps,
  history: Chunk.Chunk<SessionLog.SessionEvent>,
  limitChars: number | undefined,
): LlmAdapter.LlmRequest => {
  const { config, journal } = deps
  const events = Chunk.toReadonlyArray(history)
  const messages = History.fromEvents(events)
  let revision = 0
  for (const event of events) if (event.type === "replay/degrade") revision++
  const effort = SessionLog.reasoningOf(events)
  return {
    provider: journal.route.provider,
    model: journal.route.model,
    // Oversized tool results are cut in the request only; the log keeps them whole.
    messages: limitChars === undefined ? messages : Compaction.cutToolResults(messages, limitChars),
    sessionId: journal.id,
    historyRevision: revision,
    ...(config.system !== undefined ? { system: config.system } : {}),
    ...(deps.tools.specs.length > 0 ? { tools: deps.tools.specs } : {}),
    ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
    ...(effort === "off" ? {} : { reasoning: effort }),
  }
}
