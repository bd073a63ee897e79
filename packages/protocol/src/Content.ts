/**
 * Provider-neutral content blocks. Tool-call arguments stay the raw JSON text
 * the model produced: parsing happens where a tool runs, so a malformed
 * argument string is durable evidence, not a load failure.
 */
import { Schema } from "effect"

export const TextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
})
export type TextBlock = typeof TextBlock.Type

export const ReasoningBlock = Schema.Struct({
  type: Schema.Literal("reasoning"),
  text: Schema.String,
})
export type ReasoningBlock = typeof ReasoningBlock.Type

export const ToolCallBlock = Schema.Struct({
  type: Schema.Literal("tool-call"),
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.String,
})
export type ToolCallBlock = typeof ToolCallBlock.Type

export const ToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool-result"),
  toolCallId: Schema.String,
  content: Schema.String,
  isError: Schema.optionalWith(Schema.Boolean, { exact: true }),
})
export type ToolResultBlock = typeof ToolResultBlock.Type

/**
 * An image a user gave with a prompt: its bytes in base64 and their media
 * type (`image/png`, ...). Written once, in the user message that carried it;
 * no later event repeats it (the request history is rebuilt from that event).
 */
export const ImageBlock = Schema.Struct({
  type: Schema.Literal("image"),
  data: Schema.String,
  mimeType: Schema.String,
})
export type ImageBlock = typeof ImageBlock.Type

/** What a model streams: the blocks an assistant message is made of. */
export const AssistantBlock = Schema.Union(TextBlock, ReasoningBlock, ToolCallBlock)
export type AssistantBlock = typeof AssistantBlock.Type

export const ContentBlock = Schema.Union(TextBlock, ReasoningBlock, ToolCallBlock, ToolResultBlock, ImageBlock)
export type ContentBlock = typeof ContentBlock.Type

export const BlockType = Schema.Literal("text", "reasoning", "tool-call")
export type BlockType = typeof BlockType.Type
