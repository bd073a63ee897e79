/**
 * The reference rebuild: what the codec's read side (`PiAiReplay.codec`,
 * tuned in `src/internal/tuned/Rebuild.ts`) must answer for a durable
 * message — its native pi-ai form, or the reason its replay state cannot be
 * used — written to be read, not to be fast.
 *
 * To change what replays and what degrades, change it here first; the
 * property test `ReferenceRebuild.prop.test.ts` then shows what the tuned code
 * must match. The first rule a state breaks, in the order below, is the
 * reason given:
 *
 * 1. the message comes from a model and carries a replay state object;
 * 2. its `response` is a version-2 pi-ai response (the flat version-1 form is
 *    named as legacy) with a non-empty api, provider and model, a stop reason
 *    pi-ai sends, and string response ids when present;
 * 3. its `blocks` is an array, and the response names the message's own
 *    provider and model;
 * 4. one entry per durable block, each of the block's own type, with string
 *    signatures (an empty one is none) that the api can parse — base64 for
 *    Google, a JSON object for a Responses reasoning item — and redacted
 *    reasoning only with its signature;
 * 5. Anthropic, Bedrock and Responses messages do not end on signed reasoning
 *    (for the first two, blank text and blank unsigned thinking after it are
 *    not sent, so they do not count).
 */
import type { AssistantMessage, StopReason, TextContent, ThinkingContent, ToolCall } from "@earendil-works/pi-ai"
import type { Message } from "@turnlog/protocol"
import { zeroUsage } from "./fixtures.js"

type NativeBlock = TextContent | ThinkingContent | ToolCall
type Problem = string
type Block = Message["content"][number]

const RESPONSES_APIS = ["openai-responses", "azure-openai-responses", "openai-codex-responses"]
const GOOGLE_APIS = ["google-generative-ai", "google-vertex"]
const BLANK_DROPPING_APIS = ["anthropic-messages", "bedrock-converse-stream"]
const NO_TRAILING_REASONING_APIS = [...BLANK_DROPPING_APIS, ...RESPONSES_APIS]

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const isNonEmptyString = (u: unknown): u is string => typeof u === "string" && u !== ""
const isBase64 = (text: string): boolean => text.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(text)
const parsesToObject = (text: string): boolean => {
  try {
    return text.startsWith("{") && isObject(JSON.parse(text))
  } catch {
    return false
  }
}

const toolArguments = (text: string): ToolCall["arguments"] => {
  try {
    const value: unknown = JSON.parse(text)
    return isObject(value) ? (value as ToolCall["arguments"]) : {}
  } catch {
    return {}
  }
}

interface Response {
  readonly api: string
  readonly provider: string
  readonly model: string
  readonly stopReason: StopReason
  readonly responseModel: string | undefined
  readonly responseId: string | undefined
}

/** Rule 2: the response half, or what is wrong with it. */
const readResponse = (state: Record<string, unknown>): Response | Problem => {
  const response = state["response"]
  if (response === undefined) {
    return state["kind"] === "pi-ai" && state["version"] === 1 ? "legacy flat version-1 pi-ai state" : "replay state has no response"
  }
  if (!isObject(response)) return "replay state response is not an object"
  const { kind, version, api, provider, model, stopReason, responseModel, responseId } = response
  if (kind !== "pi-ai") return `replay state kind ${JSON.stringify(kind)} is not "pi-ai"`
  if (version !== 2) return `pi-ai replay state version ${JSON.stringify(version)} is not supported (expected 2)`
  if (!isNonEmptyString(api)) return "response.api is not a non-empty string"
  if (!isNonEmptyString(provider)) return "response.provider is not a non-empty string"
  if (!isNonEmptyString(model)) return "response.model is not a non-empty string"
  if (stopReason === "error" || stopReason === "aborted") {
    return `response.stopReason "${stopReason}" would leave the message out of the request`
  }
  if (stopReason !== "stop" && stopReason !== "length" && stopReason !== "toolUse") {
    return `response.stopReason ${JSON.stringify(stopReason)} is not a known pi-ai stop reason`
  }
  if (responseModel !== undefined && typeof responseModel !== "string") return "response.responseModel is not a string"
  if (responseId !== undefined && typeof responseId !== "string") return "response.responseId is not a string"
  return { api, provider, model, stopReason, responseModel, responseId }
}

/** A signature field: absent or a string, an empty string being absent. */
const readSignature = (entry: Record<string, unknown>, field: string, i: number): { value: string | undefined } | Problem => {
  const value = entry[field]
  if (value !== undefined && typeof value !== "string") return `block ${i} entry ${field} is not a string`
  return { value: value === "" ? undefined : value }
}

const sameType = (block: Block, entryType: string, i: number): Problem | undefined =>
  block.type === entryType ? undefined : `block ${i} is ${block.type} but its entry is ${entryType}`

const googleProblem = (api: string, signature: string | undefined, i: number): Problem | undefined =>
  GOOGLE_APIS.includes(api) && signature !== undefined && !isBase64(signature)
    ? `block ${i}: google thought signature is not base64`
    : undefined

/** Rule 4: block `i` in native form, from its durable content and its entry. */
const readBlock = (block: Block, candidate: unknown, i: number, api: string): NativeBlock | Problem => {
  if (!isObject(candidate)) return `block ${i} entry is not an object`
  const entry = candidate
  switch (entry["type"]) {
    case "text": {
      const signature = readSignature(entry, "textSignature", i)
      if (typeof signature === "string") return signature
      const problem = sameType(block, "text", i) ?? googleProblem(api, signature.value, i)
      if (problem !== undefined) return problem
      const text = (block as Extract<Block, { type: "text" }>).text
      return { type: "text", text, ...(signature.value === undefined ? {} : { textSignature: signature.value }) }
    }
    case "reasoning": {
      const signature = readSignature(entry, "thinkingSignature", i)
      if (typeof signature === "string") return signature
      const redacted = entry["redacted"]
      if (redacted !== undefined && typeof redacted !== "boolean") return `block ${i} entry redacted is not a boolean`
      const problem = sameType(block, "reasoning", i)
      if (problem !== undefined) return problem
      const thinking = (block as Extract<Block, { type: "reasoning" }>).text
      if (signature.value === undefined) {
        return redacted === true ? `block ${i}: redacted reasoning has no signature` : { type: "thinking", thinking }
      }
      if (RESPONSES_APIS.includes(api) && !parsesToObject(signature.value)) {
        return `block ${i}: ${api} reasoning signature is not a JSON object`
      }
      const google = googleProblem(api, signature.value, i)
      if (google !== undefined) return google
      return { type: "thinking", thinking, thinkingSignature: signature.value, ...(redacted === true ? { redacted } : {}) }
    }
    case "tool-call": {
      const signature = readSignature(entry, "thoughtSignature", i)
      if (typeof signature === "string") return signature
      const problem = sameType(block, "tool-call", i) ?? googleProblem(api, signature.value, i)
      if (problem !== undefined) return problem
      const call = block as Extract<Block, { type: "tool-call" }>
      return {
        type: "toolCall",
        id: call.id,
        name: call.name,
        arguments: toolArguments(call.arguments),
        ...(signature.value === undefined ? {} : { thoughtSignature: signature.value }),
      }
    }
    default:
      return `block ${i} entry has unknown type ${JSON.stringify(entry["type"])}`
  }
}

/** Whether an api's converter leaves this block out of the request. */
const isUnsent = (block: NativeBlock, api: string): boolean =>
  BLANK_DROPPING_APIS.includes(api) &&
  (block.type === "text"
    ? block.text.trim() === ""
    : block.type === "thinking" && block.thinking.trim() === "" && block.thinkingSignature === undefined)

/** Rule 5: the index of signed reasoning the message would end on, if any. */
const trailingSignedReasoning = (content: ReadonlyArray<NativeBlock>, api: string): number | undefined => {
  if (!NO_TRAILING_REASONING_APIS.includes(api)) return undefined
  let at = content.length - 1
  while (at >= 0 && isUnsent(content[at]!, api)) at--
  const last = content[at]
  return last !== undefined && last.type === "thinking" && last.thinkingSignature !== undefined ? at : undefined
}

/** The native message for `message`, or the reason its replay state cannot be used. */
export const rebuild = (message: Message): AssistantMessage | Problem => {
  const source = message.source
  if (source.kind !== "model") return `message source is ${source.kind}, not a model`
  const state = source.replayState
  if (state === undefined) return "no replay state"
  if (!isObject(state)) return "replay state is not an object"
  const response = readResponse(state)
  if (typeof response === "string") return response
  const entries = state["blocks"]
  if (entries === undefined) return "replay state has no blocks"
  if (!Array.isArray(entries)) return "replay state blocks is not an array"
  if (response.provider !== source.provider) {
    return `replay state provider "${response.provider}" differs from the message's provider "${source.provider}"`
  }
  if (response.model !== source.model) {
    return `replay state model "${response.model}" differs from the message's model "${source.model}"`
  }
  if (entries.length !== message.content.length) {
    return `replay state has ${entries.length} block entries but the message has ${message.content.length} blocks`
  }
  const content: Array<NativeBlock> = []
  for (const [i, block] of message.content.entries()) {
    const native = readBlock(block, entries[i], i, response.api)
    if (typeof native === "string") return native
    content.push(native)
  }
  const trailing = trailingSignedReasoning(content, response.api)
  if (trailing !== undefined) {
    return `block ${trailing}: ${response.api} cannot replay signed reasoning as the message's last block`
  }
  return {
    role: "assistant",
    content,
    api: response.api,
    provider: response.provider,
    model: response.model,
    ...(response.responseModel === undefined ? {} : { responseModel: response.responseModel }),
    ...(response.responseId === undefined ? {} : { responseId: response.responseId }),
    usage: zeroUsage(),
    stopReason: response.stopReason,
    timestamp: 0,
  }
}
