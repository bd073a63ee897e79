/**
 * pi-ai events → `StreamChunk`s: the write side of the adapter.
 *
 * Block index is pi-ai's `contentIndex`, so the blocks the assembler sees and
 * the envelope's per-block entries (one per native content block, built from
 * the final message) line up by construction. A response ends in exactly one
 * `finish`: `done` and `error` carry usage first; a source that ends without
 * either, or throws, ends in an error finish; events after the finish are
 * ignored.
 */
import { randomUUID } from "node:crypto"
import { type AssistantMessage, type AssistantMessageEvent, isContextOverflow } from "@earendil-works/pi-ai"
import type { Failure, FinishChunk, StreamChunk, Usage } from "@turnlog/protocol"
import { classify, type HttpResponse, messageOf } from "./Failures.js"
import { toReplayState } from "./Replay.js"

type NativeBlock = AssistantMessage["content"][number]

export interface Options {
  /** The last HTTP response of the request, for the status and headers of a failure. */
  readonly response?: () => HttpResponse | undefined
  /** Scrubs secrets from provider messages before they become durable. */
  readonly redact?: (text: string) => string
}

export interface Mapper {
  /** The chunks one pi-ai event stands for. */
  readonly event: (event: AssistantMessageEvent) => ReadonlyArray<StreamChunk>
  /** The event source ended: an error finish unless one was already emitted. */
  readonly end: () => ReadonlyArray<StreamChunk>
  /** The event source threw: an error finish unless one was already emitted. */
  readonly fail: (cause: unknown) => ReadonlyArray<StreamChunk>
  readonly finished: () => boolean
}

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

const blockTypeOf = (block: NativeBlock) =>
  block.type === "text" ? "text" as const : block.type === "thinking" ? "reasoning" as const : "tool-call" as const

/** An empty `stop` response is a failure, not a turn that said nothing. */
const isEmpty = (message: AssistantMessage): boolean =>
  message.content.every((block) =>
    block.type === "text"
      ? block.text.trim() === "" && !block.textSignature
      : block.type === "thinking"
      ? block.thinking.trim() === "" && !block.thinkingSignature
      : false
  )

export const make = (options: Options = {}): Mapper => {
  const started = new Set<number>()
  const ended = new Set<number>()
  // Raw argument text as streamed, kept for a call whose arguments pi-ai could not parse.
  const rawArguments = new Map<number, string>()
  const named = new Set<number>()
  let done = false

  const finish = (chunks: Array<StreamChunk>): Array<StreamChunk> => {
    done = true
    return chunks
  }

  const redact = options.redact ?? ((text: string) => text)
  const failure = (message: string, overflow: boolean): Failure =>
    classify(redact(message), { response: options.response?.(), overflow })

  const toolArguments = (index: number, call: Extract<NativeBlock, { type: "toolCall" }>): string => {
    const raw = rawArguments.get(index)
    return call.argumentsError !== undefined && raw !== undefined && raw !== "" ? raw : JSON.stringify(call.arguments)
  }

  /**
   * A call that streamed no id (some compatible servers send "") gets
   * `call-<index>-<this reply's tag>`: apart from the other calls of its reply
   * and from those of every other reply — a provider refuses a request whose
   * tool call ids repeat, as a session's replies would make them.
   */
  let replyTag: string | undefined
  const toolCallId = (index: number, id: string): string =>
    id !== "" ? id : `call-${index}-${replyTag ??= randomUUID().slice(0, 8)}`

  const blockEnd = (index: number, block: NativeBlock): StreamChunk => {
    ended.add(index)
    switch (block.type) {
      case "text":
        return { type: "block-end", index, block: { type: "text", text: block.text } }
      case "thinking":
        return { type: "block-end", index, block: { type: "reasoning", text: block.thinking } }
      case "toolCall":
        return {
          type: "block-end",
          index,
          block: { type: "tool-call", id: toolCallId(index, block.id), name: block.name, arguments: toolArguments(index, block) },
        }
    }
  }

  const start = (index: number, block: NativeBlock): StreamChunk => {
    started.add(index)
    return { type: "block-start", index, blockType: blockTypeOf(block) }
  }

  /**
   * Every native block has a start, and every block but a truncated tool call
   * an end, so the streamed blocks are the message's blocks, one for one.
   */
  const closeAll = (message: AssistantMessage, truncated: boolean): Array<StreamChunk> => {
    const out: Array<StreamChunk> = []
    message.content.forEach((block, index) => {
      if (!started.has(index)) out.push(start(index, block))
      if (!ended.has(index) && !(truncated && block.type === "toolCall")) out.push(blockEnd(index, block))
    })
    return out
  }

  const onDone = (reason: string, message: AssistantMessage): Array<StreamChunk> => {
    const usage: StreamChunk = { type: "usage", usage: toUsage(message.usage) }
    switch (reason) {
      case "stop":
        if (isEmpty(message)) {
          return finish([
            ...closeAll(message, false),
            usage,
            errorFinish({ code: "EMPTY_RESPONSE", message: "the model returned an empty response" }),
          ])
        }
        return finish([...closeAll(message, false), usage, {
          type: "finish",
          reason: { kind: "stop" },
          replayState: toReplayState(message),
        }])
      case "length":
        return finish([...closeAll(message, true), usage, {
          type: "finish",
          reason: { kind: "max-tokens" },
          replayState: toReplayState(message),
        }])
      case "toolUse":
        return finish([...closeAll(message, false), usage, {
          type: "finish",
          reason: { kind: "tool-calls" },
          replayState: toReplayState(message),
        }])
      default:
        return finish([
          usage,
          errorFinish({ code: "PROVIDER_ERROR", message: `unsupported stop reason "${reason}"` }),
        ])
    }
  }

  const onError = (reason: string, message: AssistantMessage): Array<StreamChunk> => {
    const usage: StreamChunk = { type: "usage", usage: toUsage(message.usage) }
    const text = message.errorMessage ?? ""
    if (reason === "aborted") {
      return finish([usage, {
        type: "finish",
        reason: { kind: "aborted", failure: { code: "ABORTED", message: redact(text) || "the request was aborted" } },
      }])
    }
    return finish([usage, errorFinish(failure(text, isContextOverflow(message)))])
  }

  const event = (e: AssistantMessageEvent): ReadonlyArray<StreamChunk> => {
    if (done) return []
    switch (e.type) {
      case "start":
        return []
      case "text_start":
      case "thinking_start":
      case "toolcall_start": {
        started.add(e.contentIndex)
        const blockType = e.type === "text_start" ? "text" : e.type === "thinking_start" ? "reasoning" : "tool-call"
        return [{ type: "block-start", index: e.contentIndex, blockType }]
      }
      case "text_delta":
        return [{ type: "text-delta", index: e.contentIndex, text: e.delta }]
      case "thinking_delta":
        return [{ type: "reasoning-delta", index: e.contentIndex, text: e.delta }]
      case "toolcall_delta": {
        const block = e.partial.content[e.contentIndex]
        const id = block?.type === "toolCall" ? block.id : ""
        const name = block?.type === "toolCall" ? block.name : ""
        rawArguments.set(e.contentIndex, (rawArguments.get(e.contentIndex) ?? "") + e.delta)
        if (!named.has(e.contentIndex) && name !== "") {
          named.add(e.contentIndex)
          return [{ type: "tool-call-delta", index: e.contentIndex, id, name, argumentsDelta: e.delta }]
        }
        return [{ type: "tool-call-delta", index: e.contentIndex, id, argumentsDelta: e.delta }]
      }
      case "text_end":
        ended.add(e.contentIndex)
        return [{ type: "block-end", index: e.contentIndex, block: { type: "text", text: e.content } }]
      case "thinking_end":
        ended.add(e.contentIndex)
        return [{ type: "block-end", index: e.contentIndex, block: { type: "reasoning", text: e.content } }]
      case "toolcall_end":
        return [blockEnd(e.contentIndex, e.toolCall)]
      case "done":
        return onDone(e.reason, e.message)
      case "error":
        return onError(e.reason, e.error)
    }
  }

  const end = (): ReadonlyArray<StreamChunk> =>
    done ? [] : finish([errorFinish({ code: "STREAM_CLOSED", message: "the provider stream ended without a result" })])

  const fail = (cause: unknown): ReadonlyArray<StreamChunk> =>
    done ? [] : finish([errorFinish(failure(messageOf(cause), false))])

  return { event, end, fail, finished: () => done }
}
