/**
 * A durable request → the pi-ai `Context` it is sent as.
 *
 * Assistant messages arrive already reconstructed (native where their replay
 * state is usable, provider-neutral otherwise); everything else is plain
 * durable content. A tool result names its tool because some wire formats
 * require it; the name comes from the tool call it answers.
 */
import type { AssistantMessage, Context, ImageContent, Message as PiMessage, TextContent, Tool } from "@earendil-works/pi-ai"
import type { LlmRequest, ToolSpec } from "@turnlog/llm/LlmAdapter"

/** Sent in place of an empty tool output: several providers reject empty tool results. */
export const NO_OUTPUT = "(no output)"
/** The tool name of a result whose call is not in the history. */
export const UNKNOWN_TOOL = "unknown"

export const toTool = (tool: ToolSpec): Tool => ({
  name: tool.name,
  description: tool.description,
  parameters: tool.parameters,
})

/**
 * `assistants` holds the native form of each assistant message of
 * `request.messages`, in order (what the reconstructor returns).
 */
export const toContext = (request: LlmRequest, assistants: ReadonlyArray<AssistantMessage>): Context => {
  const messages: Array<PiMessage> = []
  const toolNames = new Map<string, string>()
  let next = 0
  for (const message of request.messages) {
    switch (message.role) {
      case "assistant": {
        for (const block of message.content) {
          if (block.type === "tool-call") toolNames.set(block.id, block.name)
        }
        const native = assistants[next++]
        if (native !== undefined) messages.push(native)
        break
      }
      case "system": {
        const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n")
        if (text !== "") messages.push({ role: "system", content: text, timestamp: 0 })
        break
      }
      case "user": {
        // Block order is kept: a run of text and images is one user message, each tool result its own message.
        let text: Array<TextContent | ImageContent> = []
        const flush = () => {
          if (text.length > 0) messages.push({ role: "user", content: text, timestamp: 0 })
          text = []
        }
        for (const block of message.content) {
          if (block.type === "text") {
            text.push({ type: "text", text: block.text })
          } else if (block.type === "image") {
            text.push({ type: "image", data: block.data, mimeType: block.mimeType })
          } else if (block.type === "tool-result") {
            flush()
            messages.push({
              role: "toolResult",
              toolCallId: block.toolCallId,
              toolName: toolNames.get(block.toolCallId) ?? UNKNOWN_TOOL,
              content: [{ type: "text", text: block.content === "" ? NO_OUTPUT : block.content }],
              isError: block.isError === true,
              timestamp: 0,
            })
          }
        }
        flush()
        break
      }
    }
  }
  const context: Context = { messages }
  if (request.system !== undefined && request.system !== "") context.systemPrompt = request.system
  if (request.tools !== undefined && request.tools.length > 0) context.tools = request.tools.map(toTool)
  return context
}
