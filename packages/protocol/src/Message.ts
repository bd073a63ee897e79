/**
 * Durable messages and where they came from. A model source may carry the
 * provider replay state stored with the message; it is `unknown` on purpose:
 * durable logs hold states of older builds and other adapters, and only the
 * read side decides what it can use.
 */
import { Schema } from "effect"
import { ContentBlock } from "./Content.js"
import { CallId, MessageId } from "./Ids.js"

export const UserSource = Schema.Struct({ kind: Schema.Literal("user") })
export const ModelSource = Schema.Struct({
  kind: Schema.Literal("model"),
  provider: Schema.String,
  model: Schema.String,
  replayState: Schema.optionalWith(Schema.Unknown, { exact: true }),
})
export type ModelSource = typeof ModelSource.Type
export const ToolSource = Schema.Struct({ kind: Schema.Literal("tool"), callId: CallId })
export const SystemSource = Schema.Struct({ kind: Schema.Literal("system") })

export const Source = Schema.Union(UserSource, ModelSource, ToolSource, SystemSource)
export type Source = typeof Source.Type

export const Role = Schema.Literal("system", "user", "assistant")
export type Role = typeof Role.Type

const MessageFields = Schema.Struct({
  id: MessageId,
  role: Role,
  content: Schema.Array(ContentBlock),
  source: Source,
})

/** An assistant message always has a model source. */
export const Message = MessageFields.pipe(
  Schema.filter((m) => m.role === "assistant" && m.source.kind !== "model" ? "an assistant message needs a model source" : true),
)
export type Message = typeof Message.Type

/** The message a tool result is stored as: a user-role message from a tool source. */
export const makeToolResult = (options: {
  readonly id: typeof MessageId.Type
  readonly callId: string
  readonly content: string
  readonly isError?: boolean
}): Message => ({
  id: options.id,
  role: "user",
  content: [{
    type: "tool-result",
    toolCallId: options.callId,
    content: options.content,
    ...(options.isError === true ? { isError: true } : {}),
  }],
  source: { kind: "tool", callId: CallId.make(options.callId) },
})
