/**
 * The adapter → loop streaming protocol. Chunks are logged verbatim before they
 * are assembled, so this is durable vocabulary too.
 */
import { Schema } from "effect"
import { AssistantBlock, BlockType } from "./Content.js"
import { FinishReason } from "./Finish.js"
import { ReplayEnvelope } from "./ReplayEnvelope.js"
import { Usage } from "./Usage.js"

const Index = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

export const BlockStart = Schema.Struct({ type: Schema.Literal("block-start"), index: Index, blockType: BlockType })
export const TextDelta = Schema.Struct({ type: Schema.Literal("text-delta"), index: Index, text: Schema.String })
export const ReasoningDelta = Schema.Struct({
  type: Schema.Literal("reasoning-delta"),
  index: Index,
  text: Schema.String,
})
export const ToolCallDelta = Schema.Struct({
  type: Schema.Literal("tool-call-delta"),
  index: Index,
  id: Schema.String,
  name: Schema.optionalWith(Schema.String, { exact: true }),
  argumentsDelta: Schema.String,
})
export const BlockEnd = Schema.Struct({ type: Schema.Literal("block-end"), index: Index, block: AssistantBlock })
export const UsageChunk = Schema.Struct({ type: Schema.Literal("usage"), usage: Usage })
export const FinishChunk = Schema.Struct({
  type: Schema.Literal("finish"),
  reason: FinishReason,
  replayState: Schema.optionalWith(ReplayEnvelope, { exact: true }),
})

export const StreamChunk = Schema.Union(
  BlockStart,
  TextDelta,
  ReasoningDelta,
  ToolCallDelta,
  BlockEnd,
  UsageChunk,
  FinishChunk,
)
export type StreamChunk = typeof StreamChunk.Type
export type FinishChunk = typeof FinishChunk.Type
