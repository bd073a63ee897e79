/**
 * Builds the chunk list of one scripted response (for `Scripted.layerScripted`)
 * the way the adapter contract streams it: each block started, filled by one
 * delta (or, with `deltas: "pieces"`, a few words at a time and a tool call's
 * arguments in two halves, as providers stream them), ended with the complete
 * block, then an optional usage chunk and the finish. A tool call marked `open` never ends, as when the output limit cuts
 * it off. The finish defaults to `tool-calls` when a tool call is present and
 * to `stop` otherwise.
 */
import type { FinishReason, ReplayEnvelope, StreamChunk, Usage } from "@turnlog/protocol"

export type Part =
  | { readonly type: "text"; readonly text: string }
  | {
    readonly type: "reasoning"
    readonly text: string
    /** The provider's signature over the reasoning, for a replay envelope built from the parts. */
    readonly signature?: string
  }
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
  /** One delta per block (the default), or pieces as a provider streams them. */
  readonly deltas?: "one" | "pieces"
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

/** Text streamed a few words at a time, as providers do. */
const pieces = (text: string, size = 3): Array<string> => {
  const words = text.split(/(?<=\s)/)
  const out: Array<string> = []
  for (let i = 0; i < words.length; i += size) out.push(words.slice(i, i + size).join(""))
  return out.length === 0 ? [""] : out
}

const toolCallDeltas = (part: Extract<Part, { type: "tool-call" }>, index: number, split: boolean): Array<StreamChunk> => {
  if (!split) return [{ type: "tool-call-delta", index, id: part.id, name: part.name, argumentsDelta: part.arguments }]
  const half = Math.floor(part.arguments.length / 2)
  const first: StreamChunk = { type: "tool-call-delta", index, id: part.id, name: part.name, argumentsDelta: part.arguments.slice(0, half) }
  // A call cut off by the output limit stops after its first half.
  return part.open === true ? [first] : [first, { type: "tool-call-delta", index, id: part.id, argumentsDelta: part.arguments.slice(half) }]
}

const blockChunks = (split: boolean) => (part: Part, index: number): Array<StreamChunk> => {
  const texts = (text: string) => (split ? pieces(text) : [text])
  switch (part.type) {
    case "text":
      return [
        { type: "block-start", index, blockType: "text" },
        ...texts(part.text).map((text): StreamChunk => ({ type: "text-delta", index, text })),
        { type: "block-end", index, block: { type: "text", text: part.text } },
      ]
    case "reasoning":
      return [
        { type: "block-start", index, blockType: "reasoning" },
        ...texts(part.text).map((text): StreamChunk => ({ type: "reasoning-delta", index, text })),
        { type: "block-end", index, block: { type: "reasoning", text: part.text } },
      ]
    case "tool-call": {
      const started: Array<StreamChunk> = [
        { type: "block-start", index, blockType: "tool-call" },
        ...toolCallDeltas(part, index, split),
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
    ...parts.flatMap(blockChunks(options.deltas === "pieces")),
    ...(options.usage !== undefined ? [{ type: "usage", usage: options.usage } as const] : []),
    {
      type: "finish",
      reason: finish,
      ...(options.replayState !== undefined ? { replayState: options.replayState } : {}),
    },
  ]
}
