/**
 * Builds what a scripted model streams, the way a pi-ai provider would stream
 * it: blocks started, filled by deltas, ended; usage; a finish carrying a
 * version-2 pi-ai envelope with one entry per streamed block. Used by the
 * keyless demo model and the `demo` command.
 */
import type { ReplayEnvelope, StreamChunk, Usage } from "@turnlog/protocol"
import type { ScriptCall } from "./ScriptFile.js"

export type Part =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "reasoning"; readonly text: string; readonly signature?: string }
  | {
    readonly type: "tool-call"
    readonly id: string
    readonly name: string
    readonly arguments: string
    /** A call cut off by the output limit never ends. */
    readonly open?: boolean
  }

export type Finish = "stop" | "tool-calls" | "max-tokens"

const STOP_REASONS: Record<Finish, string> = { "stop": "stop", "tool-calls": "toolUse", "max-tokens": "length" }

/** Text streamed a few words at a time, as providers do. */
export const pieces = (text: string, size = 3): Array<string> => {
  const words = text.split(/(?<=\s)/)
  const out: Array<string> = []
  for (let i = 0; i < words.length; i += size) out.push(words.slice(i, i + size).join(""))
  return out.length === 0 ? [""] : out
}

const partChunks = (part: Part, index: number): Array<StreamChunk> => {
  switch (part.type) {
    case "text":
      return [
        { type: "block-start", index, blockType: "text" },
        ...pieces(part.text).map((text): StreamChunk => ({ type: "text-delta", index, text })),
        { type: "block-end", index, block: { type: "text", text: part.text } },
      ]
    case "reasoning":
      return [
        { type: "block-start", index, blockType: "reasoning" },
        ...pieces(part.text).map((text): StreamChunk => ({ type: "reasoning-delta", index, text })),
        { type: "block-end", index, block: { type: "reasoning", text: part.text } },
      ]
    case "tool-call": {
      const half = Math.floor(part.arguments.length / 2)
      const deltas: Array<StreamChunk> = [
        { type: "tool-call-delta", index, id: part.id, name: part.name, argumentsDelta: part.arguments.slice(0, half) },
        { type: "tool-call-delta", index, id: part.id, argumentsDelta: part.arguments.slice(half) },
      ]
      return [
        { type: "block-start", index, blockType: "tool-call" },
        ...(part.open === true ? deltas.slice(0, 1) : deltas),
        ...(part.open === true ? [] : [{
          type: "block-end",
          index,
          block: { type: "tool-call", id: part.id, name: part.name, arguments: part.arguments },
        } satisfies StreamChunk]),
      ]
    }
  }
}

const entry = (part: Part): unknown => {
  switch (part.type) {
    case "text":
      return { type: "text" }
    case "reasoning":
      return part.signature === undefined ? { type: "reasoning" } : { type: "reasoning", thinkingSignature: part.signature }
    case "tool-call":
      return { type: "tool-call" }
  }
}

export interface ResponseOptions {
  readonly route: string
  readonly api?: string
  readonly responseId?: string
  readonly usage?: Usage
}

/** One provider call's chunks, ending in `finish` with the version-2 envelope. */
export const response = (parts: ReadonlyArray<Part>, finish: Finish, options: ResponseOptions): ScriptCall => {
  const slash = options.route.indexOf("/")
  const envelope: ReplayEnvelope = {
    response: {
      kind: "pi-ai",
      version: 2,
      api: options.api ?? "anthropic-messages",
      provider: options.route.slice(0, slash),
      model: options.route.slice(slash + 1),
      ...(options.responseId === undefined ? {} : { responseId: options.responseId }),
      stopReason: STOP_REASONS[finish],
    },
    blocks: parts.map(entry),
  }
  const outputTokens = parts.reduce((n, p) => n + Math.ceil(("text" in p ? p.text : p.arguments).length / 4), 0)
  return {
    chunks: [
      ...parts.flatMap(partChunks),
      { type: "usage", usage: options.usage ?? { inputTokens: 100, outputTokens } },
      { type: "finish", reason: { kind: finish }, replayState: envelope },
    ],
  }
}
