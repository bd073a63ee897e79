/**
 * Builds the chunk list of one scripted response (for `Scripted.layerScripted`)
 * the way the adapter contract streams it: each block started, filled by one
 * delta, ended with the complete block, then an optional usage chunk and the
 * finish. A tool call marked `open` never ends, as when the output limit cuts
 * it off. The finish defaults to `tool-calls` when a tool call is present and
 * to `stop` otherwise.
 */
import type { FinishReason, ReplayEnvelope, StreamChunk, Usage } from "@turnlog/protocol"

export type Part =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "reasoning"; readonly text: string }
  | {
    readonly type: "tool-call"
    readonly id: string
    readonly name: string
    /** The arguments as raw JSON text. */
    readonly arguments: string
    /** Streamed but never ended (cut off by the output limit). */
    readonly open?: boolean
  }

export interface Options {
  readonly finish?: FinishReason
  readonly usage?: Usage
  readonly replayState?: ReplayEnvelope
}

export const text = (text: string): Part => ({ type: "text", text })
export const reasoning = (text: string): Part => ({ type: "reasoning", text })
/** A tool call whose arguments are `args` as JSON. */
export const toolCall = (id: string, name: string, args: unknown): Part => ({
  type: "tool-call",
  id,
  name,
  arguments: JSON.stringify(args),
})

const blockChunks = (part: Part, index: number): Array<StreamChunk> => {
  switch (part.type) {
    case "text":
      return [
        { type: "block-start", index, blockType: "text" },
        { type: "text-delta", index, text: part.text },
        { type: "block-end", index, block: { type: "text", text: part.text } },
      ]
    case "reasoning":
      return [
        { type: "block-start", index, blockType: "reasoning" },
        { type: "reasoning-delta", index, text: part.text },
        { type: "block-end", index, block: { type: "reasoning", text: part.text } },
      ]
    case "tool-call": {
      const started: Array<StreamChunk> = [
        { type: "block-start", index, blockType: "tool-call" },
        { type: "tool-call-delta", index, id: part.id, name: part.name, argumentsDelta: part.arguments },
      ]
      return part.open === true ? started : [
        ...started,
        { type: "block-end", index, block: { type: "tool-call", id: part.id, name: part.name, arguments: part.arguments } },
      ]
    }
  }
}

/** The chunks of one response made of `parts`, in order. */
export const response = (parts: ReadonlyArray<Part>, options: Options = {}): Array<StreamChunk> => {
  const finish: FinishReason = options.finish ??
    (parts.some((part) => part.type === "tool-call") ? { kind: "tool-calls" } : { kind: "stop" })
  return [
    ...parts.flatMap(blockChunks),
    ...(options.usage !== undefined ? [{ type: "usage", usage: options.usage } as const] : []),
    {
      type: "finish",
      reason: finish,
      ...(options.replayState !== undefined ? { replayState: options.replayState } : {}),
    },
  ]
}
