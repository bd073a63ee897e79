/**
 * A durable request → the AI SDK call it is sent as: the prompt (system,
 * user, assistant and tool messages), the function tools, and the call options.
 *
 * Assistant messages arrive reconstructed (`AiSdkReplay`): with their parts'
 * provider options when the replay state was usable, provider-neutral
 * otherwise. Metadata is only sent back to the route that minted it: a
 * message from another model or another wire goes without it (silently, as
 * any adapter does when the model changes; it is not a degraded message).
 */
import type {
  JSONSchema7,
  JSONValue,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  SharedV3ProviderOptions,
} from "@ai-sdk/provider"
import type { LlmRequest, ReasoningEffort, ToolSpec } from "@turnlog/llm/LlmAdapter"
import type { AssistantPart, NativeAssistant } from "./AiSdkReplay.js"

/** Sent in place of an empty tool output: several providers reject empty tool results. */
export const NO_OUTPUT = "(no output)"
/** The tool name of a result whose call is not in the history. */
export const UNKNOWN_TOOL = "unknown"

export interface Target {
  readonly provider: string
  readonly model: string
  /** The AI SDK model's `provider` string. */
  readonly sdkProvider: string
}

export const toTool = (tool: ToolSpec): LanguageModelV3FunctionTool => ({
  type: "function",
  name: tool.name,
  description: tool.description,
  inputSchema: tool.parameters as JSONSchema7,
})

const sameRoute = (native: NativeAssistant, target: Target): boolean =>
  native.route !== undefined && native.route.provider === target.provider && native.route.model === target.model &&
  native.route.sdkProvider === target.sdkProvider

/** The parts as sent to `target`: metadata and reasoning only where they were minted for it. */
const partsFor = (native: NativeAssistant, target: Target): ReadonlyArray<AssistantPart> => {
  if (native.route === undefined || sameRoute(native, target)) return native.parts
  return native.parts.flatMap((part): ReadonlyArray<AssistantPart> => {
    if (part.type === "reasoning") return []
    if (part.type === "text") return [{ type: "text", text: part.text }]
    if (part.type === "tool-call") return [{ type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: part.input }]
    return [part]
  })
}

/** `assistants` holds the native form of each assistant message of `request.messages`, in order. */
export const toPrompt = (request: LlmRequest, assistants: ReadonlyArray<NativeAssistant>, target: Target): LanguageModelV3Prompt => {
  const prompt: Array<LanguageModelV3Message> = []
  if (request.system !== undefined && request.system !== "") prompt.push({ role: "system", content: request.system })
  const toolNames = new Map<string, string>()
  let next = 0
  for (const message of request.messages) {
    switch (message.role) {
      case "assistant": {
        for (const block of message.content) if (block.type === "tool-call") toolNames.set(block.id, block.name)
        const native = assistants[next++]
        // Whitespace-only text carries nothing, and Anthropic refuses it in a request.
        const parts = native === undefined
          ? []
          : partsFor(native, target).filter((part) => !(part.type === "text" && part.text.trim() === "" && part.providerOptions === undefined))
        if (parts.length > 0) prompt.push({ role: "assistant", content: [...parts] })
        break
      }
      case "system": {
        const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n")
        if (text === "") break
        // Providers take system text only before the conversation; later it is said as the user.
        if (prompt.every((m) => m.role === "system")) prompt.push({ role: "system", content: text })
        else prompt.push({ role: "user", content: [{ type: "text", text }] })
        break
      }
      case "user": {
        // Block order is kept: a run of text and images is one user message, a run of tool results one tool message.
        for (const block of message.content) {
          const last = prompt[prompt.length - 1]
          if (block.type === "text") {
            if (last?.role === "user") last.content.push({ type: "text", text: block.text })
            else prompt.push({ role: "user", content: [{ type: "text", text: block.text }] })
          } else if (block.type === "image") {
            const part = { type: "file" as const, data: block.data, mediaType: block.mimeType }
            if (last?.role === "user") last.content.push(part)
            else prompt.push({ role: "user", content: [part] })
          } else if (block.type === "tool-result") {
            const value = block.content === "" ? NO_OUTPUT : block.content
            const part = {
              type: "tool-result" as const,
              toolCallId: block.toolCallId,
              toolName: toolNames.get(block.toolCallId) ?? UNKNOWN_TOOL,
              output: block.isError === true ? { type: "error-text" as const, value } : { type: "text" as const, value },
            }
            if (last?.role === "tool") last.content.push(part)
            else prompt.push({ role: "tool", content: [part] })
          }
        }
        break
      }
    }
  }
  return prompt
}

/** Thinking budgets for the providers that take a budget rather than an effort. */
export const BUDGETS: Record<ReasoningEffort, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16384 }

/**
 * Provider options of the call itself, under the namespace the model reads
 * (the part of its `provider` before the first dot).
 *
 * OpenAI Responses keeps nothing server-side (`store: false`) and returns its
 * reasoning encrypted, so a continuation sends each reasoning item whole from
 * the log — the log, not the provider, is where the session lives. A
 * requested reasoning effort becomes each provider's own setting.
 */
export const callProviderOptions = (target: Target, reasoning?: ReasoningEffort): SharedV3ProviderOptions | undefined => {
  const namespace = target.sdkProvider.split(".")[0] ?? target.sdkProvider
  const responses = target.sdkProvider.endsWith(".responses")
  const options: Record<string, JSONValue> = responses ? { store: false, include: ["reasoning.encrypted_content"] } : {}
  if (reasoning !== undefined) {
    switch (namespace) {
      case "anthropic":
        options["thinking"] = { type: "enabled", budgetTokens: BUDGETS[reasoning] }
        break
      case "google":
      case "vertex":
        options["thinkingConfig"] = { thinkingBudget: BUDGETS[reasoning], includeThoughts: true }
        break
      default:
        options["reasoningEffort"] = reasoning
        if (responses) options["reasoningSummary"] = "auto"
    }
  }
  return Object.keys(options).length === 0 ? undefined : { [namespace]: options }
}

/** The whole call, without its abort signal. */
export const toCallOptions = (
  request: LlmRequest,
  assistants: ReadonlyArray<NativeAssistant>,
  target: Target,
): Omit<LanguageModelV3CallOptions, "abortSignal"> => {
  const providerOptions = callProviderOptions(target, request.reasoning)
  return {
    prompt: toPrompt(request, assistants, target),
    ...(request.tools !== undefined && request.tools.length > 0 ? { tools: request.tools.map(toTool) } : {}),
    ...(request.maxTokens === undefined ? {} : { maxOutputTokens: request.maxTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(providerOptions === undefined ? {} : { providerOptions }),
  }
}
