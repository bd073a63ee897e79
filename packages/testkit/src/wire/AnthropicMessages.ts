/**
 * Anthropic Messages streaming (`anthropic-messages` in pi-ai): POST
 * `<baseUrl>/v1/messages` (pi-ai goes through the SDK's beta client, which adds
 * `?beta=true`), SSE of `event:`/`data:` pairs — message_start, ping,
 * content_block_start/delta/stop per block, message_delta with the stop reason
 * and usage, message_stop.
 *
 * baseUrl: the SDK appends `/v1/messages` itself and the real one is
 * `https://api.anthropic.com`; so point a provider at `<url>` (no `/v1`).
 *
 * Thinking streams `thinking_delta`s and then its signature as one
 * `signature_delta`; redacted thinking is a `redacted_thinking` block whose
 * `data` pi-ai keeps as the signature. A tool call cut by the output limit is
 * streamed as far as its arguments go, its block is closed, and the message
 * stops with `max_tokens` — the way the API reports truncation.
 */
import type { Block, HttpErrorReply, StreamReply } from "../Reply.js"
import { base62 } from "./Ids.js"
import {
  eventFrame,
  type HttpResponse,
  jsonDeltas,
  jsonResponse,
  modelField,
  type RenderContext,
  textDeltas,
  verbatimError,
  objectsOf,
  type Replayed,
  stringField,
  type WireFormat,
} from "./Wire.js"

const stopReason = { "stop": "end_turn", "tool-calls": "tool_use", "max-tokens": "max_tokens" } as const

const requestId = (context: RenderContext) => `req_011C${base62(`${context.seed}/request`, 20)}`

const blockFrames = (block: Block, index: number): ReadonlyArray<string> => {
  const delta = (delta: Record<string, unknown>) => eventFrame("content_block_delta", { type: "content_block_delta", index, delta })
  const start = (content_block: Record<string, unknown>) => eventFrame("content_block_start", { type: "content_block_start", index, content_block })
  const stop = eventFrame("content_block_stop", { type: "content_block_stop", index })
  switch (block.type) {
    case "reasoning":
      return [
        start({ type: "thinking", thinking: "", signature: "" }),
        ...textDeltas(block.text).map((thinking) => delta({ type: "thinking_delta", thinking })),
        ...(block.signature === undefined ? [] : [delta({ type: "signature_delta", signature: block.signature })]),
        stop,
      ]
    case "redacted-reasoning":
      return [start({ type: "redacted_thinking", data: block.data }), stop]
    case "text":
      return [
        start({ type: "text", text: "" }),
        ...textDeltas(block.text).map((text) => delta({ type: "text_delta", text })),
        stop,
      ]
    case "tool-call":
      return [
        start({ type: "tool_use", id: block.id, name: block.name, input: {} }),
        ...jsonDeltas(block.arguments).map((partial_json) => delta({ type: "input_json_delta", partial_json })),
        stop,
      ]
  }
}

const render = (reply: StreamReply, context: RenderContext): ReadonlyArray<string> => {
  const usage = {
    input_tokens: reply.usage.input,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  }
  return [
    eventFrame("message_start", {
      type: "message_start",
      message: {
        id: reply.responseId ?? `msg_01${base62(`${context.seed}/message`, 22)}`,
        type: "message",
        role: "assistant",
        model: reply.responseModel ?? context.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1, service_tier: "standard" },
      },
    }),
    eventFrame("ping", { type: "ping" }),
    ...reply.blocks.flatMap(blockFrames),
    eventFrame("message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopReason[reply.finish], stop_sequence: null },
      usage: { ...usage, output_tokens: reply.usage.output },
    }),
    eventFrame("message_stop", { type: "message_stop" }),
  ]
}

const errorType = (status: number): readonly [type: string, message: string] => {
  switch (status) {
    case 400:
      return ["invalid_request_error", "Invalid request."]
    case 401:
      return ["authentication_error", "invalid x-api-key"]
    case 403:
      return ["permission_error", "Your API key does not have permission to use the specified resource."]
    case 404:
      return ["not_found_error", "The requested resource could not be found."]
    case 413:
      return ["request_too_large", "Request exceeds the maximum allowed number of bytes."]
    case 429:
      return [
        "rate_limit_error",
        "This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.",
      ]
    case 529:
      return ["overloaded_error", "Overloaded"]
    default:
      return status >= 500 ? ["api_error", "Internal server error"] : ["invalid_request_error", "Invalid request."]
  }
}

const error = (reply: HttpErrorReply, context: RenderContext): HttpResponse => {
  const headers = { "request-id": requestId(context) }
  const verbatim = verbatimError(reply, headers)
  if (verbatim !== undefined) return verbatim
  const [type, message] = reply.kind === "context-overflow"
    ? ["invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum"] as const
    : errorType(reply.status)
  return jsonResponse(
    reply.status,
    { type: "error", error: { type, message: reply.message ?? message }, request_id: requestId(context) },
    { ...headers, ...reply.headers },
  )
}

const MODIFIED = "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. " +
  "These blocks must remain as they were in the original response."

/** Thinking signatures and redacted thinking data, refused as Anthropic refuses them: naming `messages.N.content.M`. */
const replayed = (body: unknown): ReadonlyArray<Replayed> =>
  objectsOf(body, "messages").flatMap((message, m) =>
    objectsOf(message, "content").flatMap((block, c): ReadonlyArray<Replayed> => {
      const signature = block?.["type"] === "thinking" ? stringField(block, "signature") : undefined
      if (signature !== undefined) {
        return [{ values: [signature], refusal: { status: 400, message: `messages.${m}.content.${c}: Invalid \`signature\` in \`thinking\` block` } }]
      }
      const data = block?.["type"] === "redacted_thinking" ? stringField(block, "data") : undefined
      return data === undefined ? [] : [{ values: [data], refusal: { status: 400, message: `messages.${m}.content.${c}: ${MODIFIED}` } }]
    })
  )

export const format: WireFormat = {
  api: "anthropic-messages",
  matches: (path) => path.endsWith("/v1/messages"),
  modelOf: (_path, body) => modelField(body),
  streamHeaders: (context) => ({ "request-id": requestId(context) }),
  render,
  error,
  replayed,
  overflow: (tokens, window) => ({ status: 400, kind: "context-overflow", message: `prompt is too long: ${tokens} tokens > ${window} maximum` }),
}
