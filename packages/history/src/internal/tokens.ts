/**
 * Token estimates. A provider's reported usage is the measure; characters
 * are the fallback (about four to a token for English text and code), so an
 * estimate is cheap and errs on neither side by much. The request estimate
 * walks the log backwards only as far as the latest usage (or compaction):
 * its cost follows what was added since, not the session's length.
 */
import { type Message, SessionLog, type Usage } from "@turnlog/protocol"

export const CHARS_PER_TOKEN = 4
/** What a message costs beyond its content (role, framing). */
const MESSAGE_OVERHEAD_CHARS = 16
/** What an image costs, whatever its size: providers scale a large one down to about this many tokens. */
export const IMAGE_TOKENS = 1600

export const tokensOfChars = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN)

/** The characters a message puts in a request; tool results count at most `toolResultLimitChars`. */
export const messageChars = (message: Message, toolResultLimitChars: number = Infinity): number => {
  let chars = MESSAGE_OVERHEAD_CHARS
  for (const block of message.content) {
    switch (block.type) {
      case "text":
      case "reasoning":
        chars += block.text.length
        break
      case "tool-call":
        chars += block.name.length + block.arguments.length
        break
      case "tool-result":
        chars += Math.min(block.content.length, toolResultLimitChars)
        break
      case "image":
        chars += IMAGE_TOKENS * CHARS_PER_TOKEN
        break
    }
  }
  return chars
}

export const messageTokens = (message: Message, toolResultLimitChars?: number): number => tokensOfChars(messageChars(message, toolResultLimitChars))

export const messagesTokens = (messages: ReadonlyArray<Message>, toolResultLimitChars?: number): number => {
  let chars = 0
  for (const message of messages) chars += messageChars(message, toolResultLimitChars)
  return tokensOfChars(chars)
}

/** The request a response answered, as the provider counted it: input, cached or not. */
export const contextTokens = (usage: Usage): number => usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0)

export interface Estimate {
  readonly tokens: number
  /**
   * What the figure rests on: the usage a provider reported for the latest
   * conversation request, the latest compaction's `tokensAfter`, or
   * characters alone (no usage since the history's start).
   */
  readonly basis: "usage" | "compaction" | "chars"
}

export interface EstimateOptions {
  /**
   * Tokens every request carries besides its messages (system prompt, tool
   * definitions). Counted only on the `chars` basis: reported usage and a
   * compaction's `tokensAfter` include them already.
   */
  readonly fixedTokens?: number
  /** Tool results are sent cut to this many characters (see `cutToolResults`). */
  readonly toolResultLimitChars?: number
}

type AssistantEvent = SessionLog.EventOf<"assistant/message">

/** A conversation response met walking back: the estimate when it reported usage, else the characters counted so far with it. */
const settle = (held: AssistantEvent, chars: number, limit: number | undefined): Estimate | number => {
  const { message, usage } = held.data
  // A response that counted no input did not report usage (an OpenAI-compatible
  // server without usage in its stream reads as zeros): the characters decide.
  if (usage !== undefined && contextTokens(usage) > 0) {
    const output = message.content.length > 0 ? usage.outputTokens : 0
    return { tokens: contextTokens(usage) + output + tokensOfChars(chars), basis: "usage" }
  }
  return message.content.length > 0 ? chars + messageChars(message, limit) : chars
}

/**
 * The tokens of the next request of a session, from its log: the latest
 * conversation response's reported usage (its request plus its own output)
 * plus the characters of every message logged after it. A compaction's own
 * summary request is not conversation and never anchors the figure; a
 * compaction met first anchors it at its `tokensAfter`.
 */
export const estimate = (events: ReadonlyArray<SessionLog.SessionEvent>, options: EstimateOptions = {}): Estimate => {
  const limit = options.toolResultLimitChars
  let chars = 0
  // Walking backwards an assistant message is seen before the request that
  // produced it: it is held until that request (or any other event) says
  // whether it is conversation, and then settled.
  let held: AssistantEvent | undefined
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (SessionLog.isRawChunk(event.type)) continue
    if (held !== undefined) {
      const summaryRequest = event.type === "request/start" && event.data.purpose === "compaction"
      if (!summaryRequest) {
        const settled = settle(held, chars, limit)
        if (typeof settled !== "number") return settled
        chars = settled
      }
      held = undefined
    }
    switch (event.type) {
      case "assistant/message":
        held = event
        break
      case "user/message":
      case "tool/result":
        chars += messageChars(event.data.message, limit)
        break
      case "context/compaction":
        return { tokens: event.data.tokensAfter + tokensOfChars(chars), basis: "compaction" }
      case "request/start":
      case "turn/start":
      case "tool/call":
      case "turn/end":
      case "replay/degrade":
        break
    }
  }
  if (held !== undefined) {
    const settled = settle(held, chars, limit)
    if (typeof settled !== "number") return settled
    chars = settled
  }
  return { tokens: tokensOfChars(chars) + (options.fixedTokens ?? 0), basis: "chars" }
}
