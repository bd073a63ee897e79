/**
 * An assembled response as the durable assistant `Message` the log and the
 * history reconstructor take: the kept blocks as content, and a model source
 * naming the route with the pruned envelope as its replay state.
 */
import { makeMessageId, type Message, type MessageId } from "@turnlog/protocol"
import type { Assembled } from "./Assembler.js"

export interface Route {
  readonly provider: string
  readonly model: string
}

/** The message for `assembled` (a fresh id unless one is given). Optional fields are absent, never `undefined`. */
export const toMessage = (assembled: Assembled, route: Route, id: MessageId = makeMessageId()): Message => ({
  id,
  role: "assistant",
  content: assembled.blocks,
  source: {
    kind: "model",
    provider: route.provider,
    model: route.model,
    ...(assembled.replayState !== undefined ? { replayState: assembled.replayState } : {}),
  },
})
