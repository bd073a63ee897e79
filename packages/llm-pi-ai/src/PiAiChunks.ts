/**
 * pi-ai events → `StreamChunk`s: the write side of the adapter, as a reducer.
 *
 * `step(state, input)` returns the next state and the chunks the input stands
 * for; states are values (a step never changes the state it is given), so the
 * adapter runs it with `Stream.mapAccum` and a test runs it with a fold.
 *
 * Block index is pi-ai's `contentIndex`, so the blocks the assembler sees and
 * the envelope's per-block entries (one per native content block, built from
 * the final message) line up by construction. A response ends in exactly one
 * `finish`: `done` and `error` carry usage first; a source that ends without
 * either (`source-end`), or throws (`source-failed`), ends in an error finish;
 * inputs after the finish give no chunks.
 */
import { randomUUID } from "node:crypto"
import { type AssistantMessage, type AssistantMessageEvent, isContextOverflow } from "@earendil-works/pi-ai"
import type { Failure, FinishChunk, StreamChunk, Usage } from "@turnlog/protocol"
import { classify, type HttpResponse, type ReplayLocator } from "./PiAiFailures.js"
import { toReplayState } from "./PiAiReplay.js"

type NativeBlock = AssistantMessage["content"][number]
type ToolCall = Extract<NativeBlock, { type: "toolCall" }>

export interface Options {
  /** The last HTTP response of the request, for the status and headers of a failure. */
  readonly response?: () => HttpResponse | undefined
  /** Scrubs secrets from provider messages before they become durable. */
  readonly redact?: (text: string) => string
  /** The request message a refusal of replayed metadata points at (see `PiAiFailures.ReplayLocator`). */
  readonly locate?: (locator: ReplayLocator) => number | undefined
  /** Names the calls of this reply that streamed no id (default: random). */
  readonly replyTag?: string
}

/** The event source ended without a `done` or `error` event. */
export interface SourceEnd {
  readonly type: "source-end"
}
/** The event source threw; `message` is what it threw, already read (see `PiAiFailures.messageOf`). */
export interface SourceFailed {
  readonly type: "source-failed"
  readonly message: string
}
export type Input = AssistantMessageEvent | SourceEnd | SourceFailed

export const sourceEnd: SourceEnd = { type: "source-end" }
export const sourceFailed = (message: string): SourceFailed => ({ type: "source-failed", message })

/** What is known of one native block so far. */
interface Block {
  readonly started: boolean
  readonly ended: boolean
  /** A `tool-call-delta` named the call already. */
  readonly named: boolean
  /** Raw argument text as streamed, kept for a call whose arguments pi-ai could not parse. */
  readonly rawArguments: string
}

export interface State {
  readonly options: Options
  readonly replyTag: string
  readonly blocks: ReadonlyMap<number, Block>
  readonly done: boolean
}

const emptyBlock: Block = { started: false, ended: false, named: false, rawArguments: "" }

export const initial = (options: Options = {}): State => ({
  options,
  replyTag: options.replyTag ?? randomUUID().slice(0, 8),
  blocks: new Map(),
  done: false,
})

export const isFinished = (state: State): boolean => state.done

const blockOf = (state: State, index: number): Block => state.blocks.get(index) ?? emptyBlock

const update = (state: State, index: number, change: Partial<Block>): State => ({
  ...state,
  blocks: new Map(state.blocks).set(index, { ...blockOf(state, index), ...change }),
})

const count = (n: number): number => (Number.isFinite(n) && n > 0 ? Math.round(n) : 0)

/** pi-ai usage in durable terms; zero cache and absent reasoning counts are omitted. */
export const toUsage = (usage: AssistantMessage["usage"]): Usage => {
  const out: { -readonly [K in keyof Usage]: Usage[K] } = {
    inputTokens: count(usage.input),
    outputTokens: count(usage.output),
  }
  if (count(usage.cacheRead) > 0) out.cacheReadTokens = count(usage.cacheRead)
  if (count(usage.cacheWrite) > 0) out.cacheWriteTokens = count(usage.cacheWrite)
  if (usage.reasoning !== undefined) out.reasoningTokens = count(usage.reasoning)
  return out
}

export const errorFinish = (failure: Failure): FinishChunk => ({ type: "finish", reason: { kind: "error", failure } })

const redact = (state: State, text: string): string => state.options.redact?.(text) ?? text

const failure = (state: State, message: string, overflow: boolean): Failure =>
  classify(redact(state, message), { response: state.options.response?.(), overflow, locate: state.options.locate })

const blockTypeOf = (block: NativeBlock) => block.type === "text" ? "text" as const : block.type === "thinking" ? "reasoning" as const : "tool-call" as const

/** An empty `stop` response is a failure, not a turn that said nothing. */
const isEmpty = (message: AssistantMessage): boolean =>
  message.content.every((block) =>
    block.type === "text"
      ? block.text.trim() === "" && !block.textSignature
      : block.type === "thinking"
      ? block.thinking.trim() === "" && !block.thinkingSignature
      : false
  )

/**
 * A call that streamed no id (some compatible servers send "") gets
 * `call-<index>-<this reply's tag>`: apart from the other calls of its reply
 * and from those of every other reply — a provider refuses a request whose
 * tool call ids repeat, as a session's replies would make them.
 */
const toolCallId = (state: State, index: number, id: string): string => id !== "" ? id : `call-${index}-${state.replyTag}`

const toolArguments = (state: State, index: number, call: ToolCall): string => {
  const raw = blockOf(state, index).rawArguments
  return call.argumentsError !== undefined && raw !== "" ? raw : JSON.stringify(call.arguments)
}

const blockEnd = (state: State, index: number, block: NativeBlock): StreamChunk => {
  switch (block.type) {
    case "text":
      return { type: "block-end", index, block: { type: "text", text: block.text } }
    case "thinking":
      return { type: "block-end", index, block: { type: "reasoning", text: block.thinking } }
    case "toolCall":
      return {
        type: "block-end",
        index,
        block: { type: "tool-call", id: toolCallId(state, index, block.id), name: block.name, arguments: toolArguments(state, index, block) },
      }
  }
}

/**
 * Every native block has a start, and every block but a truncated tool call
 * an end, so the streamed blocks are the message's blocks, one for one.
 */
const closeAll = (state: State, message: AssistantMessage, truncated: boolean): Array<StreamChunk> =>
  message.content.flatMap((block, index): Array<StreamChunk> => {
    const known = blockOf(state, index)
    const start: Array<StreamChunk> = known.started ? [] : [{ type: "block-start", index, blockType: blockTypeOf(block) }]
    const end = known.ended || (truncated && block.type === "toolCall") ? [] : [blockEnd(state, index, block)]
    return [...start, ...end]
  })

const finished = (state: State, chunks: ReadonlyArray<StreamChunk>): [State, ReadonlyArray<StreamChunk>] => [
  { ...state, done: true },
  chunks,
]

const onDone = (state: State, reason: string, message: AssistantMessage): [State, ReadonlyArray<StreamChunk>] => {
  const usage: StreamChunk = { type: "usage", usage: toUsage(message.usage) }
  const ended = (kind: "stop" | "max-tokens" | "tool-calls"): ReadonlyArray<StreamChunk> => [
    ...closeAll(state, message, kind === "max-tokens"),
    usage,
    { type: "finish", reason: { kind }, replayState: toReplayState(message) },
  ]
  switch (reason) {
    case "stop":
      return finished(
        state,
        isEmpty(message)
          ? [
            ...closeAll(state, message, false),
            usage,
            errorFinish({ code: "EMPTY_RESPONSE", message: "the model returned an empty response" }),
          ]
          : ended("stop"),
      )
    case "length":
      return finished(state, ended("max-tokens"))
    case "toolUse":
      return finished(state, ended("tool-calls"))
    default:
      return finished(state, [
        usage,
        errorFinish({ code: "PROVIDER_ERROR", message: `unsupported stop reason "${reason}"` }),
      ])
  }
}

const onError = (state: State, reason: string, message: AssistantMessage): [State, ReadonlyArray<StreamChunk>] => {
  const usage: StreamChunk = { type: "usage", usage: toUsage(message.usage) }
  const text = message.errorMessage ?? ""
  if (reason === "aborted") {
    return finished(state, [usage, {
      type: "finish",
      reason: { kind: "aborted", failure: { code: "ABORTED", message: redact(state, text) || "the request was aborted" } },
    }])
  }
  return finished(state, [usage, errorFinish(failure(state, text, isContextOverflow(message)))])
}

const onToolCallDelta = (
  state: State,
  e: Extract<AssistantMessageEvent, { type: "toolcall_delta" }>,
): [State, ReadonlyArray<StreamChunk>] => {
  const index = e.contentIndex
  const partial = e.partial.content[index]
  const id = partial?.type === "toolCall" ? partial.id : ""
  const name = partial?.type === "toolCall" ? partial.name : ""
  const known = blockOf(state, index)
  const naming = !known.named && name !== ""
  const next = update(state, index, { named: known.named || naming, rawArguments: known.rawArguments + e.delta })
  return [next, [
    naming
      ? { type: "tool-call-delta", index, id, name, argumentsDelta: e.delta }
      : { type: "tool-call-delta", index, id, argumentsDelta: e.delta },
  ]]
}

const onEvent = (state: State, e: AssistantMessageEvent): [State, ReadonlyArray<StreamChunk>] => {
  switch (e.type) {
    case "start":
      return [state, []]
    case "text_start":
    case "thinking_start":
    case "toolcall_start": {
      const blockType = e.type === "text_start" ? "text" : e.type === "thinking_start" ? "reasoning" : "tool-call"
      return [update(state, e.contentIndex, { started: true }), [{ type: "block-start", index: e.contentIndex, blockType }]]
    }
    case "text_delta":
      return [state, [{ type: "text-delta", index: e.contentIndex, text: e.delta }]]
    case "thinking_delta":
      return [state, [{ type: "reasoning-delta", index: e.contentIndex, text: e.delta }]]
    case "toolcall_delta":
      return onToolCallDelta(state, e)
    case "text_end":
      return [update(state, e.contentIndex, { ended: true }), [
        { type: "block-end", index: e.contentIndex, block: { type: "text", text: e.content } },
      ]]
    case "thinking_end":
      return [update(state, e.contentIndex, { ended: true }), [
        { type: "block-end", index: e.contentIndex, block: { type: "reasoning", text: e.content } },
      ]]
    case "toolcall_end":
      return [update(state, e.contentIndex, { ended: true }), [blockEnd(state, e.contentIndex, e.toolCall)]]
    case "done":
      return onDone(state, e.reason, e.message)
    case "error":
      return onError(state, e.reason, e.error)
  }
}

/** The next state and the chunks one input stands for; nothing once a finish was given. */
export const step = (state: State, input: Input): [State, ReadonlyArray<StreamChunk>] => {
  if (state.done) return [state, []]
  switch (input.type) {
    case "source-end":
      return finished(state, [errorFinish({ code: "STREAM_CLOSED", message: "the provider stream ended without a result" })])
    case "source-failed":
      return finished(state, [errorFinish(failure(state, input.message, false))])
    default:
      return onEvent(state, input)
  }
}

/** Every chunk of a whole input sequence (tests, and sources already in memory). */
export const all = (inputs: Iterable<Input>, options: Options = {}): ReadonlyArray<StreamChunk> => {
  let state = initial(options)
  const out: Array<StreamChunk> = []
  for (const input of inputs) {
    const [next, chunks] = step(state, input)
    state = next
    out.push(...chunks)
  }
  return out
}
