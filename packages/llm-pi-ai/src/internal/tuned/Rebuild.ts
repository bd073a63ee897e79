/**
 * TUNED FOR BENCHMARK valid, legacy and mixed of bench/replay.bench.ts
 * (reconstructing 10,000 messages at ≤ 1.3× a plain map on valid state, ≤ 2×
 * on legacy and mixed): the read side of the version-2 envelope, durable
 * content plus replay state back into a native pi-ai message. What it accepts
 * and the reason it gives for what it refuses are defined by the plain
 * reference in `test/ReferenceRebuild.ts`: change behaviour there first; the
 * property test `test/ReferenceRebuild.prop.test.ts` holds this code equal to
 * it and shows what it must match.
 *
 * Reading is where durable logs from other builds meet this one, so every
 * field is checked before it is trusted, and the first thing that is wrong is
 * named. Beyond the envelope's own shape, the checks cover what pi-ai itself
 * would choke on when it sends the message (a Responses reasoning signature it
 * parses as JSON, a Gemini thought signature it sends as bytes).
 *
 * Tuned: one pass with no intermediate values, arrays sized up front, and
 * each native object written as one literal (never a property added later),
 * so the engine keeps one shape per kind of object.
 */
import type { AssistantMessage, StopReason } from "@earendil-works/pi-ai"
import type { Message } from "@turnlog/protocol"
import { isRecord, KIND, type NativeBlock, parseArguments, VERSION, zeroUsage } from "../Native.js"

/**
 * The stop reasons of a message pi-ai sends: a finished one ("error" and
 * "aborted" messages it leaves out of every request — the durable content
 * would vanish, and its tool results go out with no call before them).
 */
const isStopReason = (u: unknown): u is StopReason => u === "stop" || u === "length" || u === "toolUse"
// The apis whose signatures pi-ai parses: Responses reasoning as a JSON item, Gemini signatures as bytes.
const isResponsesApi = (api: string) => api === "openai-responses" || api === "azure-openai-responses" || api === "openai-codex-responses"
const isGoogleApi = (api: string) => api === "google-generative-ai" || api === "google-vertex"
// What pi-ai's Google converter accepts as a thought signature (bytes on the wire).
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

const isJsonObjectText = (text: string): boolean => {
  if (text.charCodeAt(0) !== 123 /* { */) return false
  try {
    return isRecord(JSON.parse(text))
  } catch {
    return false
  }
}

const isBase64 = (text: string): boolean => text.length % 4 === 0 && BASE64.test(text)

/** A signature field's value is absent, or a string (an empty one counts as absent). */
const isSignature = (value: unknown): value is string | undefined => value === undefined || typeof value === "string"
const signatureOrUndefined = (value: string | undefined): string | undefined => value === "" ? undefined : value
const notString = (field: string, index: number): string => `block ${index} entry ${field} is not a string`

/** What a per-block entry may hold; every field is checked before use. */
interface Entry {
  readonly type?: unknown
  readonly textSignature?: unknown
  readonly thinkingSignature?: unknown
  readonly thoughtSignature?: unknown
  readonly redacted?: unknown
}

/** Apis whose converters leave blank blocks out of the request. */
const dropsBlankBlocks = (api: string): boolean => api === "anthropic-messages" || api === "bedrock-converse-stream"

/** A block those converters leave out: blank text, or blank thinking without a signature. */
const isUnsentBlank = (block: NativeBlock): boolean =>
  block.type === "text"
    ? block.text.trim() === ""
    : block.type === "thinking" && block.thinking.trim() === "" && block.thinkingSignature === undefined

/** Apis whose assistant messages may not end in signed reasoning. */
const endsOnOutput = (api: string): boolean => api === "anthropic-messages" || api === "bedrock-converse-stream" || isResponsesApi(api)

/** Native pi-ai message from durable content plus a version-2 state, or the reason (a string) it cannot be. */
export const rebuild = (message: Message): AssistantMessage | string => {
  const source = message.source
  if (source.kind !== "model") return `message source is ${source.kind}, not a model`
  const state = source.replayState
  if (!isRecord(state)) return state === undefined ? "no replay state" : "replay state is not an object"
  const response = state["response"]
  if (response === undefined) {
    return state["kind"] === KIND && state["version"] === 1
      ? "legacy flat version-1 pi-ai state"
      : "replay state has no response"
  }
  if (!isRecord(response)) return "replay state response is not an object"
  if (response["kind"] !== KIND) return `replay state kind ${JSON.stringify(response["kind"])} is not "pi-ai"`
  if (response["version"] !== VERSION) {
    return `pi-ai replay state version ${JSON.stringify(response["version"])} is not supported (expected 2)`
  }
  const api = response["api"]
  if (typeof api !== "string" || api === "") return "response.api is not a non-empty string"
  const provider = response["provider"]
  if (typeof provider !== "string" || provider === "") return "response.provider is not a non-empty string"
  const model = response["model"]
  if (typeof model !== "string" || model === "") return "response.model is not a non-empty string"
  const stopReason = response["stopReason"]
  if (!isStopReason(stopReason)) {
    return stopReason === "error" || stopReason === "aborted"
      ? `response.stopReason "${stopReason}" would leave the message out of the request`
      : `response.stopReason ${JSON.stringify(stopReason)} is not a known pi-ai stop reason`
  }
  const responseModel = response["responseModel"]
  if (responseModel !== undefined && typeof responseModel !== "string") {
    return "response.responseModel is not a string"
  }
  const responseId = response["responseId"]
  if (responseId !== undefined && typeof responseId !== "string") return "response.responseId is not a string"
  const entries = state["blocks"]
  if (entries === undefined) return "replay state has no blocks"
  if (!Array.isArray(entries)) return "replay state blocks is not an array"
  if (provider !== source.provider) {
    return `replay state provider "${provider}" differs from the message's provider "${source.provider}"`
  }
  if (model !== source.model) {
    return `replay state model "${model}" differs from the message's model "${source.model}"`
  }
  const blocks = message.content
  if (entries.length !== blocks.length) {
    return `replay state has ${entries.length} block entries but the message has ${blocks.length} blocks`
  }
  const responsesApi = isResponsesApi(api)
  const googleApi = isGoogleApi(api)
  // Exactly as long as the durable content: a growing array would over-allocate its backing store, and
  // these arrays live as long as the session's memo.
  const content: Array<NativeBlock> = new Array(blocks.length)
  for (let i = 0; i < blocks.length; i++) {
    const candidate: unknown = entries[i]
    if (!isRecord(candidate)) return `block ${i} entry is not an object`
    const entry = candidate as Entry
    const type = entry.type
    const block = blocks[i]!
    switch (type) {
      case "text": {
        const raw = entry.textSignature
        if (!isSignature(raw)) return notString("textSignature", i)
        const signature = signatureOrUndefined(raw)
        if (block.type !== "text") return `block ${i} is ${block.type} but its entry is text`
        if (googleApi && signature !== undefined && !isBase64(signature)) {
          return `block ${i}: google thought signature is not base64`
        }
        content[i] = signature === undefined
          ? { type: "text", text: block.text }
          : { type: "text", text: block.text, textSignature: signature }
        break
      }
      case "reasoning": {
        const raw = entry.thinkingSignature
        if (!isSignature(raw)) return notString("thinkingSignature", i)
        const signature = signatureOrUndefined(raw)
        const redacted = entry.redacted
        if (redacted !== undefined && typeof redacted !== "boolean") {
          return `block ${i} entry redacted is not a boolean`
        }
        if (block.type !== "reasoning") return `block ${i} is ${block.type} but its entry is reasoning`
        if (signature === undefined) {
          if (redacted === true) return `block ${i}: redacted reasoning has no signature`
          content[i] = { type: "thinking", thinking: block.text }
          break
        }
        if (responsesApi && !isJsonObjectText(signature)) {
          return `block ${i}: ${api} reasoning signature is not a JSON object`
        }
        if (googleApi && !isBase64(signature)) return `block ${i}: google thought signature is not base64`
        content[i] = redacted === true
          ? { type: "thinking", thinking: block.text, thinkingSignature: signature, redacted: true }
          : { type: "thinking", thinking: block.text, thinkingSignature: signature }
        break
      }
      case "tool-call": {
        const raw = entry.thoughtSignature
        if (!isSignature(raw)) return notString("thoughtSignature", i)
        const signature = signatureOrUndefined(raw)
        if (block.type !== "tool-call") return `block ${i} is ${block.type} but its entry is tool-call`
        if (googleApi && signature !== undefined && !isBase64(signature)) {
          return `block ${i}: google thought signature is not base64`
        }
        const args = parseArguments(block.arguments)
        content[i] = signature === undefined
          ? { type: "toolCall", id: block.id, name: block.name, arguments: args }
          : { type: "toolCall", id: block.id, name: block.name, arguments: args, thoughtSignature: signature }
        break
      }
      default:
        return `block ${i} entry has unknown type ${JSON.stringify(type)}`
    }
  }
  // A response cut off at the output limit may end in reasoning (its tool call
  // dropped, or the budget spent thinking). Anthropic refuses an assistant
  // message whose last block is signed thinking, and the Responses api a
  // reasoning item with no output item after it: sent natively, that message
  // would fail every later request.
  if (endsOnOutput(api)) {
    // What is sent last: Anthropic's and Bedrock's converters leave blank text
    // (and blank unsigned thinking) out of the request, so signed reasoning
    // followed only by those still ends the message.
    let at = content.length - 1
    if (dropsBlankBlocks(api)) { while (at >= 0 && isUnsentBlank(content[at]!)) at-- }
    const last = content[at]
    if (last !== undefined && last.type === "thinking" && last.thinkingSignature !== undefined) {
      return `block ${at}: ${api} cannot replay signed reasoning as the message's last block`
    }
  }
  return nativeMessage(content, api, provider, model, stopReason, responseModel, responseId)
}

/** The native message in one literal per combination of the optional response ids (no property added later). */
const nativeMessage = (
  content: Array<NativeBlock>,
  api: string,
  provider: string,
  model: string,
  stopReason: StopReason,
  responseModel: string | undefined,
  responseId: string | undefined,
): AssistantMessage =>
  responseModel === undefined
    ? responseId === undefined
      ? { role: "assistant", content, api, provider, model, usage: zeroUsage(), stopReason, timestamp: 0 }
      : { role: "assistant", content, api, provider, model, responseId, usage: zeroUsage(), stopReason, timestamp: 0 }
    : responseId === undefined
    ? { role: "assistant", content, api, provider, model, responseModel, usage: zeroUsage(), stopReason, timestamp: 0 }
    : {
      role: "assistant",
      content,
      api,
      provider,
      model,
      responseModel,
      responseId,
      usage: zeroUsage(),
      stopReason,
      timestamp: 0,
    }
