/**
 * A scripted response shaped as a pi-ai provider streams it: blocks started,
 * filled by pieces, ended; usage; a finish carrying a version-2 pi-ai
 * envelope with one entry per streamed block. The keyless demo model and the
 * `demo` command play these through `Scripted.layerReplaying` with this
 * package's codec, so they are stored, replayed and degraded like a real
 * provider's answers.
 */
import { ChunkScript, type Scripted } from "@turnlog/llm"
import { parseRoute, type ReplayEnvelope, type Usage } from "@turnlog/protocol"

export type Finish = "stop" | "tool-calls" | "max-tokens"

/** pi-ai's stop reason for each finish. */
const STOP_REASONS: Record<Finish, string> = { "stop": "stop", "tool-calls": "toolUse", "max-tokens": "length" }

const entry = (part: ChunkScript.Part): unknown => {
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
  /** `<provider>/<model>` the envelope names. */
  readonly route: string
  /** The pi-ai api (default `anthropic-messages`). */
  readonly api?: string
  readonly responseId?: string
  /** Default: 100 input tokens and a quarter of the parts' characters as output. */
  readonly usage?: Usage
}

/** One provider call's chunks, ending in `finish` with the version-2 envelope. */
export const response = (
  parts: ReadonlyArray<ChunkScript.Part>,
  finish: Finish,
  options: ResponseOptions,
): Scripted.ScriptedCall => {
  const route = parseRoute(options.route)
  if (route === undefined) throw new Error(`expected "<provider>/<model>", got "${options.route}"`)
  const envelope: ReplayEnvelope = {
    response: {
      kind: "pi-ai",
      version: 2,
      api: options.api ?? "anthropic-messages",
      provider: route.provider,
      model: route.model,
      ...(options.responseId === undefined ? {} : { responseId: options.responseId }),
      stopReason: STOP_REASONS[finish],
    },
    blocks: parts.map(entry),
  }
  const outputTokens = parts.reduce((n, p) => n + Math.ceil(("text" in p ? p.text : p.arguments).length / 4), 0)
  return {
    chunks: ChunkScript.response(parts, {
      finish: { kind: finish },
      usage: options.usage ?? { inputTokens: 100, outputTokens },
      replayState: envelope,
      deltas: "pieces",
    }),
  }
}
