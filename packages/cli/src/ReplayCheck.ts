/**
 * A stored message's replay state judged as a request would judge it, for
 * `doctor` and the HTML page: by the replay codec of an adapter kind (pi-ai
 * or ai-sdk). The codecs' read sides are plain functions over the durable
 * message (neither loads a provider library), so judging a session costs
 * what reading it costs, whichever adapters wrote it.
 */
import * as AiSdkReplay from "@turnlog/llm-ai-sdk/AiSdkReplay"
import * as PiAiReplay from "@turnlog/llm-pi-ai/PiAiReplay"
import type { Message } from "@turnlog/protocol"
import { type Kind, kindOf, KINDS } from "./AdapterChoice.js"

/** The adapter kind that wrote `message`'s replay state, when it is one of this build's (none: no state, or another kind). */
export const writtenBy = (message: Message): Kind | undefined => {
  if (message.source.kind !== "model") return undefined
  const kind = kindOf(message.source.replayState)
  return KINDS.find((k) => k === kind)
}

/** Why a request of the `under` adapter sends `message` provider-neutral; undefined when it replays natively. */
export const reasonUnder = (message: Message, under: Kind): string | undefined => {
  if (under === AiSdkReplay.KIND) {
    const rebuilt = AiSdkReplay.rebuild(message)
    return typeof rebuilt === "string" ? rebuilt : undefined
  }
  let reason: string | undefined
  PiAiReplay.toPiAssistant(message, (error) => {
    reason = error.reason
  })
  return reason
}

/**
 * Why `message` degrades under the adapter that wrote it (a state of no kind
 * this build has: under the default adapter, pi-ai); undefined when it
 * replays natively there. Under that adapter it replays natively or it never does.
 */
export const ownReason = (message: Message): string | undefined => reasonUnder(message, writtenBy(message) ?? "pi-ai")
