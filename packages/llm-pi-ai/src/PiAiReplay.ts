/**
 * The pi-ai replay envelope, version 2: written from a finished pi-ai
 * assistant message, read back into one when a later request replays it
 * (`internal/tuned/Rebuild.ts`).
 *
 * Reading is where durable logs from other builds meet this one, so every
 * field is checked before it is trusted, and anything unusable fails with
 * `InvalidReplayState` and a reason that names the one thing that was wrong.
 * The reconstructor turns that into a provider-neutral message plus a
 * diagnostic: a stale or foreign state costs fidelity for one message, never
 * the request.
 *
 * `decode` answers with completed `Exit` values, so the reconstructor reads
 * them without running a fiber, and the degrade path allocates no stack trace.
 */
import { Exit } from "effect"
import type { AssistantMessage, StopReason } from "@earendil-works/pi-ai"
import type { Message, ReplayEnvelope } from "@turnlog/protocol"
import { InvalidReplayState, type ReplayCodec } from "@turnlog/history"
import { KIND, type NativeBlock, parseArguments, VERSION, zeroUsage } from "./internal/Native.js"
import { rebuild } from "./internal/tuned/Rebuild.js"

export { KIND, parseArguments, VERSION } from "./internal/Native.js"

/** The `api` of a provider-neutral message: no real api, so pi-ai treats it as another model's. */
export const FOREIGN_API = "turnlog-foreign"

export interface ResponseEntry {
  readonly kind: typeof KIND
  readonly version: typeof VERSION
  readonly api: string
  readonly provider: string
  readonly model: string
  readonly responseModel?: string
  readonly responseId?: string
  readonly stopReason: StopReason
}

export type BlockEntry =
  | { readonly type: "text"; readonly textSignature?: string }
  | { readonly type: "reasoning"; readonly thinkingSignature?: string; readonly redacted?: boolean }
  | { readonly type: "tool-call"; readonly thoughtSignature?: string }

// ---------------------------------------------------------------------------
// Write side

const blockEntry = (block: NativeBlock): BlockEntry => {
  switch (block.type) {
    case "text":
      return block.textSignature ? { type: "text", textSignature: block.textSignature } : { type: "text" }
    case "thinking": {
      const entry: { type: "reasoning"; thinkingSignature?: string; redacted?: boolean } = { type: "reasoning" }
      if (block.thinkingSignature) entry.thinkingSignature = block.thinkingSignature
      if (block.redacted === true) entry.redacted = true
      return entry
    }
    case "toolCall":
      return block.thoughtSignature ? { type: "tool-call", thoughtSignature: block.thoughtSignature } : { type: "tool-call" }
  }
}

/**
 * The version-2 envelope of a finished pi-ai message: the response half plus
 * one entry per native content block, in stream order. Empty signatures carry
 * nothing pi-ai would send back, so they are omitted like absent ones.
 */
export const toReplayState = (message: AssistantMessage): ReplayEnvelope => {
  const response: { -readonly [K in keyof ResponseEntry]: ResponseEntry[K] } = {
    kind: KIND,
    version: VERSION,
    api: message.api,
    provider: message.provider,
    model: message.model,
    stopReason: message.stopReason,
  }
  if (message.responseModel !== undefined) response.responseModel = message.responseModel
  if (message.responseId !== undefined) response.responseId = message.responseId
  return { response, blocks: message.content.map(blockEntry) }
}

// ---------------------------------------------------------------------------
// Read side

/**
 * Provider-neutral conversion from durable content alone: an api that is no
 * real api, so pi-ai sends text and tool calls and drops what only the
 * original model could use.
 */
export const foreign = (message: Message): AssistantMessage => {
  const blocks = message.content
  // Sized up front like `rebuild`'s; trimmed only if the content holds tool results.
  const content: Array<NativeBlock> = new Array(blocks.length)
  let n = 0
  let toolCalls = false
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!
    switch (block.type) {
      case "text":
        content[n++] = { type: "text", text: block.text }
        break
      case "reasoning":
        content[n++] = { type: "thinking", thinking: block.text }
        break
      case "tool-call":
        toolCalls = true
        content[n++] = { type: "toolCall", id: block.id, name: block.name, arguments: parseArguments(block.arguments) }
        break
      case "tool-result":
        break
    }
  }
  if (n < blocks.length) content.length = n
  const source = message.source
  return {
    role: "assistant",
    content,
    api: FOREIGN_API,
    provider: source.kind === "model" ? source.provider : source.kind,
    model: source.kind === "model" ? source.model : source.kind,
    usage: zeroUsage(),
    stopReason: toolCalls ? "toolUse" : "stop",
    timestamp: 0,
  }
}

/** The codec the reconstructor runs: native form, or `InvalidReplayState` with its reason. */
export const codec: ReplayCodec<AssistantMessage> = {
  kind: KIND,
  decode: (message) => {
    const result = rebuild(message)
    return typeof result === "string" ? InvalidReplayState.fail(result) : Exit.succeed(result)
  },
  foreign,
}

/**
 * The recovered, synchronous form: the native message when the state is
 * usable, else the provider-neutral one (and `onDegrade` is told why). A
 * message without replay state is converted provider-neutral silently.
 */
export const toPiAssistant = (
  message: Message,
  onDegrade?: (error: InvalidReplayState) => void,
): AssistantMessage => {
  if (message.source.kind !== "model" || message.source.replayState === undefined) return foreign(message)
  const result = rebuild(message)
  if (typeof result !== "string") return result
  onDegrade?.(new InvalidReplayState({ reason: result }))
  return foreign(message)
}
