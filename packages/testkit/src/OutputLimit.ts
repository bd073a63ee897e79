/**
 * The output limit a real provider holds an answer to: the request's
 * `max_tokens` (each wire spells it its own way). An answer longer than that
 * is cut where the limit falls and finishes at the output limit
 * (`finish_reason: length`, `stop_reason: max_tokens`, …), so a test sees what
 * a too small answer budget costs. An answer is counted at a token per four
 * characters of its text, reasoning and tool-call arguments.
 */
import type { Block, StreamReply } from "./Reply.js"

export const CHARS_PER_TOKEN = 4

const positive = (value: unknown): number | undefined => typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined

/** The answer budget a request body asks for, in any of the wire formats; undefined when it names none. */
export const requested = (body: unknown): number | undefined => {
  if (typeof body !== "object" || body === null) return undefined
  const fields = body as Record<string, unknown>
  const config = fields["generationConfig"]
  return positive(fields["max_tokens"]) ?? positive(fields["max_completion_tokens"]) ??
    positive(fields["max_output_tokens"]) ??
    (typeof config === "object" && config !== null
      ? positive((config as Record<string, unknown>)["maxOutputTokens"])
      : undefined)
}

/** The characters of a block that count against the limit. */
const charsOf = (block: Block): number => {
  switch (block.type) {
    case "text":
    case "reasoning":
      return block.text.length
    case "tool-call":
      return block.arguments.length
    case "redacted-reasoning":
      return 0
  }
}

/** The block cut to its first `chars` characters (a tool call then streams only its prefix). */
const cutBlock = (block: Block, chars: number): Block => {
  switch (block.type) {
    case "text":
    case "reasoning":
      return { ...block, text: block.text.slice(0, chars) }
    case "tool-call":
      return { ...block, arguments: block.arguments.slice(0, chars), complete: false }
    case "redacted-reasoning":
      return block
  }
}

/** The reply as a provider holding it to `maxTokens` sends it: unchanged when it fits. */
export const apply = (reply: StreamReply, maxTokens: number): StreamReply => {
  let room = maxTokens * CHARS_PER_TOKEN
  const blocks: Array<Block> = []
  for (const block of reply.blocks) {
    const chars = charsOf(block)
    if (chars <= room) {
      blocks.push(block)
      room -= chars
      continue
    }
    if (room > 0) blocks.push(cutBlock(block, room))
    return { ...reply, blocks, finish: "max-tokens" }
  }
  return reply
}
