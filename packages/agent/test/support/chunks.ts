// Chunk builders for scripted responses: the framing an adapter emits for each block.
import type { FailureCode, FinishReason, ReplayEnvelope, StreamChunk, Usage } from "@turnlog/protocol"

export const text = (index: number, ...deltas: ReadonlyArray<string>): Array<StreamChunk> => [
  { type: "block-start", index, blockType: "text" },
  ...deltas.map((t): StreamChunk => ({ type: "text-delta", index, text: t })),
  { type: "block-end", index, block: { type: "text", text: deltas.join("") } },
]

export const reasoning = (index: number, ...deltas: ReadonlyArray<string>): Array<StreamChunk> => [
  { type: "block-start", index, blockType: "reasoning" },
  ...deltas.map((t): StreamChunk => ({ type: "reasoning-delta", index, text: t })),
  { type: "block-end", index, block: { type: "reasoning", text: deltas.join("") } },
]

export const toolCall = (index: number, id: string, name: string, args: string): Array<StreamChunk> => [
  { type: "block-start", index, blockType: "tool-call" },
  { type: "tool-call-delta", index, id, name, argumentsDelta: args },
  { type: "block-end", index, block: { type: "tool-call", id, name, arguments: args } },
]

/** A tool call cut off by the output limit: started, arguments half streamed, never ended. */
export const openToolCall = (index: number, id: string, name: string, partialArgs: string): Array<StreamChunk> => [
  { type: "block-start", index, blockType: "tool-call" },
  { type: "tool-call-delta", index, id, name, argumentsDelta: partialArgs },
]

export const usage = (inputTokens: number, outputTokens: number): StreamChunk & { type: "usage" } => ({
  type: "usage",
  usage: { inputTokens, outputTokens } satisfies Usage,
})

export const finish = (reason: FinishReason, replayState?: ReplayEnvelope): StreamChunk => ({
  type: "finish",
  reason,
  ...(replayState !== undefined ? { replayState } : {}),
})

export const stop = (replayState?: ReplayEnvelope) => finish({ kind: "stop" }, replayState)
export const toolCalls = (replayState?: ReplayEnvelope) => finish({ kind: "tool-calls" }, replayState)

export const failed = (code: FailureCode, message: string, extra: { status?: number; retryAfterMs?: number } = {}) =>
  finish({ kind: "error", failure: { code, message, ...extra } })

/** A complete text reply. */
export const reply = (...deltas: ReadonlyArray<string>): Array<StreamChunk> => [...text(0, ...deltas), stop()]
