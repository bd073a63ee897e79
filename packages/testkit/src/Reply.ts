/**
 * What the loopback provider answers, described once and independently of any
 * wire format. The server renders a reply into the api of the request's path,
 * so one script drives every provider format, and a test states what the model
 * "said" rather than how one provider spells it.
 *
 * Scripts also arrive as JSON files (the standalone process), so a reply is a
 * Schema and is decoded at that boundary; unknown fields are rejected so that a
 * typo in a script fails loudly instead of silently playing something else.
 */
import { Either, ParseResult, Schema } from "effect"

const Count = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

/** Reasoning text; `signature` is the provider's proof of it (see each wire module for its rendering). */
export const ReasoningBlock = Schema.Struct({
  type: Schema.Literal("reasoning"),
  text: Schema.String,
  signature: Schema.optionalWith(Schema.String, { exact: true }),
  /** The provider's item id (openai-responses `rs_…`); a stable id is derived when absent. */
  id: Schema.optionalWith(Schema.String, { exact: true }),
}).annotations({ identifier: "ReasoningBlock" })

/** Reasoning the provider withholds and only returns as an opaque payload. */
export const RedactedReasoningBlock = Schema.Struct({
  type: Schema.Literal("redacted-reasoning"),
  data: Schema.String,
  id: Schema.optionalWith(Schema.String, { exact: true }),
}).annotations({ identifier: "RedactedReasoningBlock" })

export const TextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  /** Google only: the thought signature carried by the block's last part. */
  signature: Schema.optionalWith(Schema.String, { exact: true }),
  /** openai-responses only: the message item id (`msg_…`); a stable id is derived when absent. */
  id: Schema.optionalWith(Schema.String, { exact: true }),
}).annotations({ identifier: "TextBlock" })

export const ToolCallBlock = Schema.Struct({
  type: Schema.Literal("tool-call"),
  /** The call id the provider reports (Anthropic `toolu_…`, OpenAI `call_…`). */
  id: Schema.String,
  name: Schema.String,
  /** The argument text exactly as streamed; when `complete` is false, the prefix sent before the cut. */
  arguments: Schema.String,
  /** `false`: the output limit cut this call while its arguments streamed. */
  complete: Schema.optionalWith(Schema.Boolean, { exact: true }),
  /** Google only: the thought signature on the function-call part. */
  signature: Schema.optionalWith(Schema.String, { exact: true }),
  /** openai-responses only: the function-call item id (`fc_…`); a stable id is derived when absent. */
  itemId: Schema.optionalWith(Schema.String, { exact: true }),
}).annotations({ identifier: "ToolCallBlock" })

export const Block = Schema.Union(ReasoningBlock, RedactedReasoningBlock, TextBlock, ToolCallBlock).annotations({
  identifier: "Block",
})
export type Block = typeof Block.Type

export const Finish = Schema.Literal("stop", "tool-calls", "max-tokens")
export type Finish = typeof Finish.Type

export const ReplyUsage = Schema.Struct({ input: Count, output: Count }).annotations({ identifier: "ReplyUsage" })
export type ReplyUsage = typeof ReplyUsage.Type

const Headers = Schema.Record({ key: Schema.String, value: Schema.String })

/** A successful streamed response, optionally cut short by the server or slowed down. */
export const StreamReply = Schema.Struct({
  blocks: Schema.optionalWith(Schema.Array(Block), { default: () => [] }),
  finish: Schema.optionalWith(Finish, { default: () => "stop" as const }),
  usage: Schema.optionalWith(ReplyUsage, { default: () => ({ input: 0, output: 0 }) }),
  /** The response id the provider reports; a stable id in the provider's own shape is derived when absent. */
  responseId: Schema.optionalWith(Schema.String, { exact: true }),
  /** The model the response reports; the requested model when absent. */
  responseModel: Schema.optionalWith(Schema.String, { exact: true }),
  /** Pause between two events, so a client can cancel mid-stream. */
  delayMs: Schema.optionalWith(Count, { exact: true }),
  /** Send one event whose data is not JSON after this many events (a faulty provider or proxy), then the rest. */
  malformedAfterEvents: Schema.optionalWith(Count, { exact: true }),
  /** Destroy the connection after this many events (a provider or network failure mid-stream). */
  dropAfterEvents: Schema.optionalWith(Count, { exact: true }),
  /**
   * Stop after this many events and hold the connection open until the client
   * leaves (a provider that hangs mid-stream): a cancellation test knows exactly
   * what the client received, with no clock involved.
   */
  stallAfterEvents: Schema.optionalWith(Count, { exact: true }),
}).pipe(
  Schema.filter((reply) => {
    const cut = reply.blocks.findIndex((block) => block.type === "tool-call" && block.complete === false)
    if (cut === -1) return true
    if (cut !== reply.blocks.length - 1) return "a tool call cut by the output limit must be the last block"
    return reply.finish === "max-tokens" || 'a tool call cut by the output limit needs finish "max-tokens"'
  }),
).annotations({ identifier: "StreamReply" })
export type StreamReply = typeof StreamReply.Type

/** A non-2xx answer. The body is the provider's own error format unless `body` replaces it. */
export const HttpErrorReply = Schema.Struct({
  status: Schema.Number.pipe(Schema.int(), Schema.between(400, 599)),
  /** `context-overflow`: the provider's "input exceeds the context window" error. */
  kind: Schema.optionalWith(Schema.Literal("context-overflow"), { exact: true }),
  /** The message inside the provider's error body (a realistic one per status when absent). */
  message: Schema.optionalWith(Schema.String, { exact: true }),
  /** The whole body, verbatim: a string is sent as is, anything else as JSON. */
  body: Schema.optionalWith(Schema.Unknown, { exact: true }),
  headers: Schema.optionalWith(Headers, { exact: true }),
  /** Pause before answering. */
  delayMs: Schema.optionalWith(Count, { exact: true }),
}).annotations({ identifier: "HttpErrorReply" })
export type HttpErrorReply = typeof HttpErrorReply.Type

/** Either kind of reply; decode with `decodeReply`, which tells them apart by `status`. */
export const Reply = Schema.Union(HttpErrorReply, StreamReply)
export type Reply = typeof Reply.Type
/** A reply as written in a test or a script file (defaults not yet applied). */
export type ReplyInput = typeof Reply.Encoded

export const isHttpError = (reply: Reply): reply is HttpErrorReply => "status" in reply

const parseOptions = { onExcessProperty: "error", errors: "all" } as const

const format = (error: ParseResult.ParseError): string => ParseResult.TreeFormatter.formatErrorSync(error)

/**
 * Decodes one reply. The `status` field alone tells the two kinds apart, so only
 * that kind's errors are reported (a union would list both kinds' complaints).
 */
export const decodeReply = (input: unknown): Either.Either<Reply, string> => {
  const isError = typeof input === "object" && input !== null && "status" in input
  const decoded: Either.Either<Reply, ParseResult.ParseError> = isError
    ? Schema.decodeUnknownEither(HttpErrorReply, parseOptions)(input)
    : Schema.decodeUnknownEither(StreamReply, parseOptions)(input)
  return Either.mapLeft(decoded, format)
}

/** Decodes a script file: an array of replies, or `{"replies": [...]}`. */
export const decodeScript = (input: unknown): Either.Either<ReadonlyArray<Reply>, string> => {
  const replies = Array.isArray(input)
    ? input
    : typeof input === "object" && input !== null && "replies" in input && Array.isArray(input.replies)
    ? input.replies as ReadonlyArray<unknown>
    : undefined
  if (replies === undefined) return Either.left('expected an array of replies or {"replies": [...]}')
  const decoded: Array<Reply> = []
  for (const [index, reply] of replies.entries()) {
    const result = decodeReply(reply)
    if (Either.isLeft(result)) return Either.left(`reply ${index + 1}: ${result.left}`)
    decoded.push(result.right)
  }
  return Either.right(decoded)
}
