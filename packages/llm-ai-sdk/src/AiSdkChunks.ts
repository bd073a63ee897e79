/**
 * AI SDK stream parts → `StreamChunk`s: the write side of the adapter, as a reducer.
 *
 * `step(state, input)` returns the next state and the chunks the input stands
 * for; states are values, so the adapter runs it with `Stream.mapAccum` and a
 * test with a fold. The AI SDK names blocks by a string id per kind; each
 * block gets the next turnlog index when it starts, and its provider metadata
 * (a signature streamed with a delta, an item id on the end part) is merged
 * per block as it arrives. The finish carries the `ai-sdk` envelope with one
 * entry per block that started, in index order, so entries and streamed
 * blocks line up by construction and the assembler's keep/drop decision
 * prunes both together.
 *
 * A response ends in exactly one `finish`: the `finish` part, an `error` part,
 * a source that ends without either (`source-end`) or throws
 * (`source-failed`). Inputs after the finish give no chunks.
 */
import type { LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider"
import { randomUUID } from "node:crypto"
import type { Failure, FinishChunk, StreamChunk, Usage } from "@turnlog/protocol"
import { classify, type Context as FailureContext } from "./AiSdkFailures.js"
import { type BlockEntry, type ProviderMetadata, toReplayState } from "./AiSdkReplay.js"

export interface Options {
  /** The route the response answers and the AI SDK model's `provider`: the envelope's response half. */
  readonly provider: string
  readonly model: string
  readonly sdkProvider: string
  /** Messages and redaction for classifying failures. */
  readonly failures?: FailureContext
  /** Names the calls of this reply that streamed no id (default: random). */
  readonly replyTag?: string
}

export interface SourceEnd {
  readonly type: "source-end"
}
export interface SourceFailed {
  readonly type: "source-failed"
  readonly cause: unknown
}
export type Input = LanguageModelV3StreamPart | SourceEnd | SourceFailed

export const sourceEnd: SourceEnd = { type: "source-end" }
export const sourceFailed = (cause: unknown): SourceFailed => ({ type: "source-failed", cause })

type Kind = "text" | "reasoning" | "tool-call"

interface Block {
  readonly index: number
  readonly kind: Kind
  readonly text: string
  readonly callId: string
  readonly toolName: string
  readonly ended: boolean
  readonly named: boolean
  readonly metadata: ProviderMetadata | undefined
}

export interface State {
  readonly options: Options
  readonly replyTag: string
  /** Open and ended blocks by `<kind>:<id>`; the latest block of a reused id wins. */
  readonly byId: ReadonlyMap<string, number>
  readonly blocks: ReadonlyArray<Block>
  readonly responseId: string | undefined
  readonly responseModel: string | undefined
  readonly done: boolean
}

export const initial = (options: Options): State => ({
  options,
  replyTag: options.replyTag ?? randomUUID().slice(0, 8),
  byId: new Map(),
  blocks: [],
  responseId: undefined,
  responseModel: undefined,
  done: false,
})

type Step = [State, ReadonlyArray<StreamChunk>]

export const errorFinish = (failure: Failure): FinishChunk => ({ type: "finish", reason: { kind: "error", failure } })

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Field by field within each namespace: a later part adds to what earlier parts of the block said. */
const merge = (into: ProviderMetadata | undefined, add: unknown): ProviderMetadata | undefined => {
  if (!isRecord(add)) return into
  const out: Record<string, Record<string, never>> = { ...(into as Record<string, Record<string, never>>) }
  for (const [name, fields] of Object.entries(add)) {
    if (!isRecord(fields)) continue
    const kept = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
    out[name] = { ...out[name], ...kept } as Record<string, never>
  }
  return Object.keys(out).length === 0 ? into : out
}

const keyOf = (kind: Kind, id: string) => `${kind}:${id}`

const withBlock = (state: State, block: Block): State => {
  const blocks = state.blocks.slice()
  blocks[block.index] = block
  return { ...state, blocks }
}

/** The block a part names, starting it when it is new (or its id was ended and is used again). */
const open = (state: State, kind: Kind, id: string, toolName = ""): [State, Block, ReadonlyArray<StreamChunk>] => {
  const at = state.byId.get(keyOf(kind, id))
  const found = at === undefined ? undefined : state.blocks[at]
  if (found !== undefined && !found.ended) return [state, found, []]
  const index = state.blocks.length
  const block: Block = { index, kind, text: "", callId: id, toolName, ended: false, named: false, metadata: undefined }
  const next = { ...withBlock(state, block), byId: new Map(state.byId).set(keyOf(kind, id), index) }
  return [next, block, [{ type: "block-start", index, blockType: kind }]]
}

const callIdOf = (state: State, block: Block): string => block.callId !== "" ? block.callId : `call-${block.index}-${state.replyTag}`

const endChunk = (state: State, block: Block, args?: string): StreamChunk => {
  switch (block.kind) {
    case "text":
      return { type: "block-end", index: block.index, block: { type: "text", text: block.text } }
    case "reasoning":
      return { type: "block-end", index: block.index, block: { type: "reasoning", text: block.text } }
    case "tool-call":
      return {
        type: "block-end",
        index: block.index,
        block: { type: "tool-call", id: callIdOf(state, block), name: block.toolName, arguments: args ?? (block.text === "" ? "{}" : block.text) },
      }
  }
}

const count = (n: number | undefined): number => (n !== undefined && Number.isFinite(n) && n > 0 ? Math.round(n) : 0)

/** AI SDK usage in durable terms: input without cached tokens, as every adapter counts it; zero extras omitted. */
export const toUsage = (usage: LanguageModelV3Usage): Usage => {
  const cacheRead = count(usage.inputTokens.cacheRead)
  const cacheWrite = count(usage.inputTokens.cacheWrite)
  const input = usage.inputTokens.noCache ?? Math.max(0, count(usage.inputTokens.total) - cacheRead - cacheWrite)
  const out: { -readonly [K in keyof Usage]: Usage[K] } = { inputTokens: count(input), outputTokens: count(usage.outputTokens.total) }
  if (cacheRead > 0) out.cacheReadTokens = cacheRead
  if (cacheWrite > 0) out.cacheWriteTokens = cacheWrite
  if (usage.outputTokens.reasoning !== undefined) out.reasoningTokens = count(usage.outputTokens.reasoning)
  return out
}

const finished = (state: State, chunks: ReadonlyArray<StreamChunk>): Step => [{ ...state, done: true }, chunks]

const fail = (state: State, cause: unknown): Step => finished(state, [errorFinish(classify(cause, state.options.failures))])

const entries = (state: State): ReadonlyArray<BlockEntry> =>
  state.blocks.map((block) => (block.metadata === undefined ? { type: block.kind } : { type: block.kind, providerMetadata: block.metadata }))

const isEmpty = (state: State): boolean => state.blocks.every((block) => block.kind !== "tool-call" && block.text.trim() === "" && block.metadata === undefined)

const onFinish = (state: State, part: Extract<LanguageModelV3StreamPart, { type: "finish" }>): Step => {
  const unified = part.finishReason.unified
  const truncated = unified === "length"
  // Every open block ends, but a tool call the output limit cut: the assembler drops it with its entry.
  const closing: Array<StreamChunk> = []
  let closed = state
  for (const block of state.blocks) {
    if (block.ended || (truncated && block.kind === "tool-call")) continue
    closing.push(endChunk(state, block))
    closed = withBlock(closed, { ...block, ended: true })
  }
  const usage: StreamChunk = { type: "usage", usage: toUsage(part.usage) }
  const replayState = toReplayState({
    provider: state.options.provider,
    model: state.options.model,
    sdkProvider: state.options.sdkProvider,
    responseId: state.responseId,
    responseModel: state.responseModel,
  }, entries(closed))
  const ended = (kind: "stop" | "max-tokens" | "tool-calls"): Step => finished(closed, [...closing, usage, { type: "finish", reason: { kind }, replayState }])
  const hasCalls = state.blocks.some((block) => block.kind === "tool-call")
  switch (unified) {
    case "stop":
      if (isEmpty(closed)) {
        return finished(closed, [...closing, usage, errorFinish({ code: "EMPTY_RESPONSE", message: "the model returned an empty response" })])
      }
      // Some servers say "stop" after calling tools; the calls are what the loop must act on.
      return ended(hasCalls ? "tool-calls" : "stop")
    case "length":
      return ended("max-tokens")
    case "tool-calls":
      return ended("tool-calls")
    default:
      return finished(closed, [
        ...closing,
        usage,
        errorFinish({
          code: "PROVIDER_ERROR",
          message: `unsupported finish reason "${unified}"${part.finishReason.raw === undefined ? "" : ` (${part.finishReason.raw})`}`,
        }),
      ])
  }
}

const delta = (state: State, kind: "text" | "reasoning", id: string, text: string, metadata: unknown): Step => {
  const [opened, block, start] = open(state, kind, id)
  const next = withBlock(opened, { ...block, text: block.text + text, metadata: merge(block.metadata, metadata) })
  if (text === "") return [next, start]
  return [next, [...start, kind === "text" ? { type: "text-delta", index: block.index, text } : { type: "reasoning-delta", index: block.index, text }]]
}

const end = (state: State, kind: Kind, id: string, metadata: unknown, args?: string): Step => {
  const [opened, block, start] = open(state, kind, id)
  const merged = { ...block, metadata: merge(block.metadata, metadata), ended: true }
  return [withBlock(opened, merged), [...start, endChunk(opened, merged, args)]]
}

const toolDelta = (state: State, id: string, text: string, metadata: unknown): Step => {
  const [opened, block, start] = open(state, "tool-call", id)
  const naming = !block.named && block.toolName !== ""
  const next = withBlock(opened, { ...block, text: block.text + text, named: block.named || naming, metadata: merge(block.metadata, metadata) })
  if (text === "" && !naming) return [next, start]
  const chunk: StreamChunk = naming
    ? { type: "tool-call-delta", index: block.index, id: callIdOf(state, block), name: block.toolName, argumentsDelta: text }
    : { type: "tool-call-delta", index: block.index, id: callIdOf(state, block), argumentsDelta: text }
  return [next, [...start, chunk]]
}

const onPart = (state: State, part: LanguageModelV3StreamPart): Step => {
  switch (part.type) {
    case "response-metadata":
      return [{
        ...state,
        responseId: part.id ?? state.responseId,
        responseModel: part.modelId ?? state.responseModel,
      }, []]
    case "text-start":
    case "reasoning-start": {
      const kind = part.type === "text-start" ? "text" : "reasoning"
      const [opened, block, start] = open(state, kind, part.id)
      return [withBlock(opened, { ...block, metadata: merge(block.metadata, part.providerMetadata) }), start]
    }
    case "text-delta":
      return delta(state, "text", part.id, part.delta, part.providerMetadata)
    case "reasoning-delta":
      return delta(state, "reasoning", part.id, part.delta, part.providerMetadata)
    case "text-end":
      return end(state, "text", part.id, part.providerMetadata)
    case "reasoning-end":
      return end(state, "reasoning", part.id, part.providerMetadata)
    case "tool-input-start": {
      if (part.providerExecuted === true) return [state, []]
      const [opened, block, start] = open(state, "tool-call", part.id, part.toolName)
      const named = withBlock(opened, { ...block, toolName: part.toolName, metadata: merge(block.metadata, part.providerMetadata) })
      const [next, chunks] = toolDelta(named, part.id, "", undefined)
      return [next, [...start, ...chunks]]
    }
    case "tool-input-delta":
      return state.byId.has(keyOf("tool-call", part.id)) ? toolDelta(state, part.id, part.delta, part.providerMetadata) : [state, []]
    case "tool-input-end": {
      const at = state.byId.get(keyOf("tool-call", part.id))
      const block = at === undefined ? undefined : state.blocks[at]
      return block === undefined ? [state, []] : [withBlock(state, { ...block, metadata: merge(block.metadata, part.providerMetadata) }), []]
    }
    case "tool-call": {
      // Tools the provider ran itself are not turnlog's: the loop runs every tool it answers for.
      if (part.providerExecuted === true) return [state, []]
      const at = state.byId.get(keyOf("tool-call", part.toolCallId))
      const known = at === undefined ? undefined : state.blocks[at]
      if (known === undefined || known.ended) {
        // A call that arrives whole: started and filled here, as if it had streamed.
        const [opened, , start] = open(state, "tool-call", part.toolCallId, part.toolName)
        const [filled, deltas] = toolDelta(opened, part.toolCallId, part.input, undefined)
        const [next, ending] = end(filled, "tool-call", part.toolCallId, part.providerMetadata, part.input)
        return [next, [...start, ...deltas, ...ending]]
      }
      return end(state, "tool-call", part.toolCallId, part.providerMetadata, part.input)
    }
    case "finish":
      return onFinish(state, part)
    case "error":
      return fail(state, part.error)
    default:
      // stream-start, raw, files, sources, provider-run tool results, approval requests: nothing turnlog keeps.
      return [state, []]
  }
}

/** The next state and the chunks one input stands for; nothing once a finish was given. */
export const step = (state: State, input: Input): Step => {
  if (state.done) return [state, []]
  switch (input.type) {
    case "source-end":
      return finished(state, [errorFinish({ code: "STREAM_CLOSED", message: "the provider stream ended without a result" })])
    case "source-failed":
      return fail(state, input.cause)
    default:
      return onPart(state, input)
  }
}

/** Every chunk of a whole input sequence (tests, and sources already in memory). */
export const all = (inputs: Iterable<Input>, options: Options): ReadonlyArray<StreamChunk> => {
  let state = initial(options)
  const out: Array<StreamChunk> = []
  for (const input of inputs) {
    const [next, chunks] = step(state, input)
    state = next
    out.push(...chunks)
  }
  return out
}
