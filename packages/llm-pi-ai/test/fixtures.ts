// Builders shared by the unit tests: pi-ai messages and the durable messages they are stored as.
import type { AssistantMessage, ToolCall } from "@earendil-works/pi-ai"
import type { AssistantBlock, Message } from "@turnlog/protocol"
import { MessageId } from "@turnlog/protocol"
import { zeroUsage } from "../src/internal/Native.js"

export { zeroUsage }

export const piAssistant = (
  content: AssistantMessage["content"],
  fields: Partial<Omit<AssistantMessage, "role" | "content">> = {},
): AssistantMessage => ({
  role: "assistant",
  content,
  api: "anthropic-messages",
  provider: "acme",
  model: "m1",
  usage: zeroUsage(),
  stopReason: "stop",
  timestamp: 0,
  ...fields,
})

export const toolCall = (id: string, name: string, args: ToolCall["arguments"], thoughtSignature?: string): ToolCall =>
  thoughtSignature === undefined
    ? { type: "toolCall", id, name, arguments: args }
    : { type: "toolCall", id, name, arguments: args, thoughtSignature }

/** The durable blocks a pi-ai message is stored as (what the assembler keeps). */
export const durableBlocks = (message: AssistantMessage): Array<AssistantBlock> =>
  message.content.map((block): AssistantBlock =>
    block.type === "text"
      ? { type: "text", text: block.text }
      : block.type === "thinking"
      ? { type: "reasoning", text: block.thinking }
      : { type: "tool-call", id: block.id, name: block.name, arguments: JSON.stringify(block.arguments) }
  )

export const assistantMessage = (
  id: string,
  content: ReadonlyArray<AssistantBlock>,
  replayState?: unknown,
  route: { readonly provider: string; readonly model: string } = { provider: "acme", model: "m1" },
): Message => ({
  id: MessageId.make(id),
  role: "assistant",
  content,
  source: {
    kind: "model",
    provider: route.provider,
    model: route.model,
    ...(replayState === undefined ? {} : { replayState }),
  },
})

export const userMessage = (id: string, text: string): Message => ({
  id: MessageId.make(id),
  role: "user",
  content: [{ type: "text", text }],
  source: { kind: "user" },
})

/** True when no property anywhere in `value` is present with the value `undefined`. */
export const hasNoUndefined = (value: unknown): boolean => {
  if (Array.isArray(value)) return value.every(hasNoUndefined)
  if (typeof value === "object" && value !== null) {
    return Object.values(value).every((v) => v !== undefined && hasNoUndefined(v))
  }
  return true
}
