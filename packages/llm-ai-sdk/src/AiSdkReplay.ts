/**
 * The `ai-sdk` replay envelope, version 1: written from the provider metadata
 * the AI SDK streamed with each block, read back into the assistant message of
 * an AI SDK prompt whose parts carry that metadata as provider options.
 *
 * The AI SDK names its metadata per provider (`anthropic.signature`,
 * `anthropic.redactedData`, `openai.itemId`, `openai.reasoningEncryptedContent`,
 * `google.thoughtSignature`…) and reads it back from the same keys, so an
 * entry keeps the block's metadata as streamed and the read side hands it
 * back unchanged. The keys whose values the provider sends back on the wire
 * are checked before they are trusted; anything unusable fails with
 * `InvalidReplayState` naming the one thing that was wrong, and the shared
 * reconstructor sends that message provider-neutral.
 */
import type { JSONValue, LanguageModelV3Message, SharedV3ProviderOptions } from "@ai-sdk/provider"
import { Exit } from "effect"
import { InvalidReplayState, type ReplayCodec } from "@turnlog/history"
import type { Message, ReplayEnvelope } from "@turnlog/protocol"

export const KIND = "ai-sdk"
export const VERSION = 1

/** Metadata as the AI SDK streams it: provider namespace → fields. */
export type ProviderMetadata = Readonly<Record<string, Readonly<Record<string, JSONValue>>>>

export interface ResponseEntry {
  readonly kind: typeof KIND
  readonly version: typeof VERSION
  /** The turnlog route's provider and model, as on the message's source. */
  readonly provider: string
  readonly model: string
  /** The AI SDK model's `provider` (e.g. `anthropic.messages`, `openai.responses`): which wire wrote it. */
  readonly sdkProvider: string
  readonly responseId?: string
  readonly responseModel?: string
}

export interface BlockEntry {
  readonly type: "text" | "reasoning" | "tool-call"
  readonly providerMetadata?: ProviderMetadata
}

export type AssistantPart = Extract<LanguageModelV3Message, { role: "assistant" }>["content"][number]

/** A durable assistant message in AI SDK form, and the route whose metadata its parts carry (none: provider-neutral). */
export interface NativeAssistant {
  readonly route: { readonly provider: string; readonly model: string; readonly sdkProvider: string } | undefined
  readonly parts: ReadonlyArray<AssistantPart>
}

// ---------------------------------------------------------------------------
// Write side

export interface WrittenResponse {
  readonly provider: string
  readonly model: string
  readonly sdkProvider: string
  readonly responseId?: string | undefined
  readonly responseModel?: string | undefined
}

/** The version-1 envelope of a finished response: the response half plus one entry per streamed block. */
export const toReplayState = (response: WrittenResponse, blocks: ReadonlyArray<BlockEntry>): ReplayEnvelope => {
  const head: { -readonly [K in keyof ResponseEntry]: ResponseEntry[K] } = {
    kind: KIND,
    version: VERSION,
    provider: response.provider,
    model: response.model,
    sdkProvider: response.sdkProvider,
  }
  if (response.responseId !== undefined && response.responseId !== "") head.responseId = response.responseId
  if (response.responseModel !== undefined && response.responseModel !== "") head.responseModel = response.responseModel
  return { response: head, blocks }
}

// ---------------------------------------------------------------------------
// Read side

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
const isBase64 = (text: string) => text.length % 4 === 0 && BASE64.test(text)

/** Durable arguments are raw JSON text; a prompt's tool call wants the value. Anything but an object is `{}`. */
export const parseArguments = (text: string): unknown => {
  try {
    const value: unknown = JSON.parse(text)
    return isRecord(value) ? value : {}
  } catch {
    return {}
  }
}

/** The fields a provider sends back on the wire, checked per namespace; undefined when usable. */
const checkNamespace = (name: string, fields: Record<string, unknown>, at: string): string | undefined => {
  const string = (field: string, nullable = false): string | undefined => {
    const value = fields[field]
    if (value === undefined || typeof value === "string" || (nullable && value === null)) return undefined
    return `${at} ${name}.${field} is not a string`
  }
  switch (name) {
    case "anthropic":
      return string("signature") ?? string("redactedData")
    case "openai":
    case "azure":
      return string("itemId") ?? string("reasoningEncryptedContent", true)
    case "google":
    case "vertex": {
      const signature = fields["thoughtSignature"]
      if (signature === undefined) return undefined
      if (typeof signature !== "string") return `${at} ${name}.thoughtSignature is not a string`
      return isBase64(signature) ? undefined : `${at} ${name}.thoughtSignature is not base64`
    }
    default:
      return undefined
  }
}

/** The entry's metadata when it is an object of objects of JSON values, else the reason. */
const checkMetadata = (value: unknown, at: string): ProviderMetadata | string | undefined => {
  if (value === undefined) return undefined
  if (!isRecord(value)) return `${at} providerMetadata is not an object`
  for (const name in value) {
    const fields = value[name]
    if (!isRecord(fields)) return `${at} providerMetadata.${name} is not an object`
    const wrong = checkNamespace(name, fields, at)
    if (wrong !== undefined) return wrong
  }
  return value as ProviderMetadata
}

/** Metadata that makes a reasoning block signed: the provider checks it when it comes back. */
const isSignedReasoning = (metadata: ProviderMetadata | undefined): boolean => {
  const anthropic = metadata?.["anthropic"]
  const openai = metadata?.["openai"] ?? metadata?.["azure"]
  return (anthropic !== undefined && (typeof anthropic["signature"] === "string" || typeof anthropic["redactedData"] === "string")) ||
    (openai !== undefined && (typeof openai["itemId"] === "string" || typeof openai["reasoningEncryptedContent"] === "string"))
}

/** The options a part carries: the metadata as streamed, or none (one literal per case, no property added later). */
const optionsOf = (metadata: ProviderMetadata | undefined): SharedV3ProviderOptions | undefined =>
  metadata === undefined || Object.keys(metadata).length === 0 ? undefined : metadata as SharedV3ProviderOptions

/** Native form from durable content plus a version-1 state, or the reason (a string) it cannot be. */
export const rebuild = (message: Message): NativeAssistant | string => {
  const source = message.source
  if (source.kind !== "model") return `message source is ${source.kind}, not a model`
  const state = source.replayState
  if (!isRecord(state)) return state === undefined ? "no replay state" : "replay state is not an object"
  const response = state["response"]
  if (!isRecord(response)) {
    return response === undefined ? `replay state of kind ${JSON.stringify(state["kind"])} has no response` : "replay state response is not an object"
  }
  if (response["kind"] !== KIND) return `replay state kind ${JSON.stringify(response["kind"])} is not "${KIND}"`
  if (response["version"] !== VERSION) {
    return `${KIND} replay state version ${JSON.stringify(response["version"])} is not supported (expected ${VERSION})`
  }
  const provider = response["provider"]
  const model = response["model"]
  const sdkProvider = response["sdkProvider"]
  if (typeof provider !== "string" || provider === "") return "response.provider is not a non-empty string"
  if (typeof model !== "string" || model === "") return "response.model is not a non-empty string"
  if (typeof sdkProvider !== "string" || sdkProvider === "") return "response.sdkProvider is not a non-empty string"
  for (const field of ["responseId", "responseModel"] as const) {
    if (response[field] !== undefined && typeof response[field] !== "string") return `response.${field} is not a string`
  }
  if (provider !== source.provider) return `replay state provider "${provider}" differs from the message's provider "${source.provider}"`
  if (model !== source.model) return `replay state model "${model}" differs from the message's model "${source.model}"`
  const entries = state["blocks"]
  if (!Array.isArray(entries)) return entries === undefined ? "replay state has no blocks" : "replay state blocks is not an array"
  const blocks = message.content
  if (entries.length !== blocks.length) {
    return `replay state has ${entries.length} block entries but the message has ${blocks.length} blocks`
  }
  const parts: Array<AssistantPart> = []
  let lastSigned = false
  for (let i = 0; i < blocks.length; i++) {
    const entry: unknown = entries[i]
    if (!isRecord(entry)) return `block ${i} entry is not an object`
    const block = blocks[i]!
    const type = entry["type"]
    if (type !== "text" && type !== "reasoning" && type !== "tool-call") return `block ${i} entry has unknown type ${JSON.stringify(type)}`
    if (block.type !== type) return `block ${i} is ${block.type} but its entry is ${type}`
    const metadata = checkMetadata(entry["providerMetadata"], `block ${i}`)
    if (typeof metadata === "string") return metadata
    switch (block.type) {
      case "text": {
        const providerOptions = optionsOf(metadata)
        parts.push(providerOptions === undefined ? { type: "text", text: block.text } : { type: "text", text: block.text, providerOptions })
        // Blank text is left out of the request by the providers that refuse it: it does not end the message.
        if (block.text.trim() !== "") lastSigned = false
        break
      }
      case "reasoning": {
        const providerOptions = optionsOf(metadata)
        parts.push(
          providerOptions === undefined ? { type: "reasoning", text: block.text } : { type: "reasoning", text: block.text, providerOptions },
        )
        lastSigned = isSignedReasoning(metadata)
        break
      }
      case "tool-call": {
        const providerOptions = optionsOf(metadata)
        const input = parseArguments(block.arguments)
        parts.push(
          providerOptions === undefined
            ? { type: "tool-call", toolCallId: block.id, toolName: block.name, input }
            : { type: "tool-call", toolCallId: block.id, toolName: block.name, input, providerOptions },
        )
        lastSigned = false
        break
      }
    }
  }
  // A response cut at the output limit may end in signed reasoning (its tool
  // call dropped, or the budget spent thinking): Anthropic refuses an assistant
  // message whose last block is signed thinking, and the Responses api a
  // reasoning item with nothing after it — every later request would fail.
  if (lastSigned) return `block ${blocks.length - 1}: signed reasoning cannot be replayed as the message's last block`
  return { route: { provider, model, sdkProvider }, parts }
}

/**
 * Provider-neutral conversion from durable content alone: text and tool
 * calls. Reasoning is left out: without its provider's signature no provider
 * takes it back as reasoning, and as text it would put words in the model's mouth.
 */
export const foreign = (message: Message): NativeAssistant => {
  const parts: Array<AssistantPart> = []
  for (const block of message.content) {
    if (block.type === "text") parts.push({ type: "text", text: block.text })
    else if (block.type === "tool-call") {
      parts.push({ type: "tool-call", toolCallId: block.id, toolName: block.name, input: parseArguments(block.arguments) })
    }
  }
  return { route: undefined, parts }
}

/** The codec the reconstructor runs: native form, or `InvalidReplayState` with its reason. */
export const codec: ReplayCodec<NativeAssistant> = {
  kind: KIND,
  decode: (message) => {
    const result = rebuild(message)
    return typeof result === "string" ? InvalidReplayState.fail(result) : Exit.succeed(result)
  },
  foreign,
}
