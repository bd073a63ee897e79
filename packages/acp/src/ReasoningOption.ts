/**
 * How hard the session's model is asked to reason, as a session config option
 * (category `thought_level`): offered while the session's model reasons (its
 * model entry says so), with `off` (nothing asked, the provider's default)
 * and three efforts. A choice is logged (`session/reasoning`) between turns,
 * so a reload restores it, and is sent with each request from then on.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { SessionLog } from "@turnlog/protocol"

export const ID = "reasoning"

const NAMES: Readonly<Record<SessionLog.ReasoningEffort, string>> = {
  off: "Off",
  low: "Low",
  medium: "Medium",
  high: "High",
}

export const option = (current: SessionLog.ReasoningEffort): acp.SessionConfigOption => ({
  id: ID,
  name: "Reasoning effort",
  description: "How hard the model thinks before it answers",
  category: "thought_level",
  type: "select",
  currentValue: current,
  options: SessionLog.REASONING_EFFORTS.map((effort) => ({ value: effort, name: NAMES[effort] })),
})

/** The effort a `session/set_config_option` value names, if it is one. */
export const parse = (value: unknown): SessionLog.ReasoningEffort | undefined => SessionLog.REASONING_EFFORTS.find((effort) => effort === value)
