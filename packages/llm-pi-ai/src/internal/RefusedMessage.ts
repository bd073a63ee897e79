/**
 * Which request message a provider's refusal of replayed metadata is about.
 *
 * The provider names its own request, not ours: Anthropic a position in the
 * body it received (`messages.3.content.1`), OpenAI Responses a reasoning
 * item id. Either leads to a piece of metadata (the signature or redacted data
 * at that position, or the id), and the message whose replay state holds it is
 * the one refused. Nothing found: no index, never a guess.
 */
import { Option, Schema } from "effect"
import type { Message } from "@turnlog/protocol"
import type { ReplayLocator } from "../PiAiFailures.js"

const WireBlock = Schema.Struct({
  signature: Schema.optional(Schema.String),
  data: Schema.optional(Schema.String),
})
const WireBody = Schema.parseJson(Schema.Struct({
  messages: Schema.Array(Schema.Struct({ content: Schema.Union(Schema.String, Schema.Array(Schema.Unknown)) })),
}))
const decodeBody = Schema.decodeUnknownOption(WireBody)
const decodeBlock = Schema.decodeUnknownOption(WireBlock)

const metadataOf = (block: unknown): string | undefined =>
  Option.match(decodeBlock(block), {
    onNone: () => undefined,
    onSome: (b) => (b.signature !== undefined && b.signature !== "" ? b.signature : b.data !== "" ? b.data : undefined),
  })

/** The signature (or redacted data) at a position of the body sent; else the first one of that message. */
const metadataAt = (body: string | undefined, position: { readonly message: number; readonly content: number }) => {
  const decoded = decodeBody(body)
  if (Option.isNone(decoded)) return undefined
  const content = decoded.value.messages[position.message]?.content
  if (content === undefined || typeof content === "string") return undefined
  return metadataOf(content[position.content]) ?? content.map(metadataOf).find((found) => found !== undefined)
}

/** Finds the message a refusal points at, by the request's messages and the body that was sent. */
export const locate = (messages: ReadonlyArray<Message>, requestBody: () => string | undefined) => (locator: ReplayLocator): number | undefined => {
  const needle = locator._tag === "ItemId" ? locator.id : metadataAt(requestBody(), locator)
  if (needle === undefined) return undefined
  // The replay state holds it verbatim, or inside a JSON string (an OpenAI reasoning item).
  const quoted = JSON.stringify(needle).slice(1, -1)
  const index = messages.findIndex((message) =>
    message.source.kind === "model" && message.source.replayState !== undefined &&
    JSON.stringify(message.source.replayState).includes(quoted)
  )
  return index === -1 ? undefined : index
}
