/**
 * OpenAI Chat Completions streaming (`openai-completions` in pi-ai), as the
 * `openai` SDK reads it: POST `<baseUrl>/chat/completions`, SSE of
 * `data: <chat.completion.chunk>` lines closed by `data: [DONE]`.
 *
 * baseUrl: the SDK appends `/chat/completions` to the baseUrl as given, and the
 * real one is `https://api.openai.com/v1`; so point a provider at `<url>/v1`.
 *
 * The format has one text stream and one reasoning stream per response, so
 * consecutive blocks of a kind reach pi-ai as one block. Reasoning comes the way
 * OpenAI-compatible servers send it:
 * - without a signature as `reasoning_content` deltas (DeepSeek, vLLM, llama.cpp),
 *   which pi-ai replays as `reasoning_content` on the assistant message;
 * - with a signature as `reasoning` deltas plus OpenRouter `reasoning_details`
 *   (`reasoning.text`, the signature on the last detail), which pi-ai keeps as
 *   the JSON of the details and replays as `reasoning_details`;
 * - redacted as a `reasoning.encrypted` detail carrying the data.
 * A tool call cut by the output limit is streamed as far as its arguments go and
 * the choice finishes with `length`.
 */
import type { Block, HttpErrorReply, StreamReply } from "../Reply.js"
import { base62, hex } from "./Ids.js"
import {
  dataFrame,
  type HttpResponse,
  jsonDeltas,
  jsonResponse,
  modelField,
  objectsOf,
  type RenderContext,
  type Replayed,
  stringField,
  textDeltas,
  verbatimError,
  type WireFormat,
} from "./Wire.js"

const DETAIL_FORMAT = "anthropic-claude-v1"

const finishReason = { "stop": "stop", "tool-calls": "tool_calls", "max-tokens": "length" } as const

type Delta = Record<string, unknown>

const blockDeltas = (block: Block, reasoningIndex: number, toolIndex: number, seed: string): ReadonlyArray<Delta> => {
  switch (block.type) {
    case "reasoning": {
      const pieces = textDeltas(block.text)
      if (block.signature === undefined) return pieces.map((piece) => ({ reasoning_content: piece }))
      const signature = block.signature
      const signed = pieces.length === 0 ? [""] : pieces
      return signed.map((piece, i) => ({
        reasoning: piece,
        reasoning_details: [{
          type: "reasoning.text",
          text: piece,
          ...(i === signed.length - 1 ? { signature } : {}),
          format: DETAIL_FORMAT,
          index: reasoningIndex,
        }],
      }))
    }
    case "redacted-reasoning":
      return [{
        reasoning_details: [{
          type: "reasoning.encrypted",
          data: block.data,
          id: block.id ?? `rs_${hex(`${seed}/redacted/${reasoningIndex}`, 48)}`,
          format: DETAIL_FORMAT,
          index: reasoningIndex,
        }],
      }]
    case "text":
      return textDeltas(block.text).map((piece) => ({ content: piece }))
    case "tool-call":
      return [
        {
          tool_calls: [{ index: toolIndex, id: block.id, type: "function", function: { name: block.name, arguments: "" } }],
        },
        ...jsonDeltas(block.arguments).map((piece) => ({
          tool_calls: [{ index: toolIndex, function: { arguments: piece } }],
        })),
      ]
  }
}

const render = (reply: StreamReply, context: RenderContext): ReadonlyArray<string> => {
  const base = {
    id: reply.responseId ?? `chatcmpl-${base62(`${context.seed}/completion`, 29)}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: reply.responseModel ?? context.model,
    service_tier: "default",
    system_fingerprint: `fp_${hex(`${context.seed}/fingerprint`, 10)}`,
  }
  const chunk = (delta: Delta, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  })
  const frames = [dataFrame(chunk({ role: "assistant", content: "", refusal: null }))]
  let reasoningIndex = 0
  let toolIndex = 0
  for (const block of reply.blocks) {
    for (const delta of blockDeltas(block, reasoningIndex, toolIndex, context.seed)) frames.push(dataFrame(chunk(delta)))
    if (block.type === "reasoning" || block.type === "redacted-reasoning") reasoningIndex++
    if (block.type === "tool-call") toolIndex++
  }
  frames.push(dataFrame(chunk({}, finishReason[reply.finish])))
  // The usage chunk only comes when the request asked for it, as with the real API.
  if (includeUsage(context.requestBody)) {
    frames.push(dataFrame({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: reply.usage.input,
        completion_tokens: reply.usage.output,
        total_tokens: reply.usage.input + reply.usage.output,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 0,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
    }))
  }
  frames.push(dataFrame("[DONE]"))
  return frames
}

const includeUsage = (body: unknown): boolean => {
  if (typeof body !== "object" || body === null) return false
  const options = (body as { stream_options?: unknown }).stream_options
  return typeof options === "object" && options !== null && (options as { include_usage?: unknown }).include_usage === true
}

/** `{message, type, code}` of the OpenAI error object per status (shared with the Responses API). */
export const openAiError = (
  status: number,
  kind: HttpErrorReply["kind"],
  overflowParam: string,
): { readonly message: string; readonly type: string; readonly param: string | null; readonly code: string | null } => {
  if (kind === "context-overflow") {
    return {
      message: overflowParam === "input"
        ? "Your input exceeds the context window of this model. Please adjust your input and try again."
        : "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
      type: "invalid_request_error",
      param: overflowParam,
      code: "context_length_exceeded",
    }
  }
  switch (status) {
    case 401:
      return {
        message: "Incorrect API key provided: sk-loop*****back. You can find your API key at https://platform.openai.com/account/api-keys.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      }
    case 403:
      return { message: "You are not allowed to sample from this model", type: "invalid_request_error", param: null, code: null }
    case 404:
      return { message: "The model does not exist or you do not have access to it.", type: "invalid_request_error", param: null, code: "model_not_found" }
    case 429:
      return {
        message: "Rate limit reached for requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 120ms.",
        type: "requests",
        param: null,
        code: "rate_limit_exceeded",
      }
    default:
      return status >= 500
        ? { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", param: null, code: null }
        : { message: "Invalid request.", type: "invalid_request_error", param: null, code: null }
  }
}

export const openAiErrorResponse = (reply: HttpErrorReply, context: RenderContext, overflowParam: string): HttpResponse => {
  const headers = { "x-request-id": `req_${hex(`${context.seed}/request`, 32)}` }
  const verbatim = verbatimError(reply, headers)
  if (verbatim !== undefined) return verbatim
  const error = openAiError(reply.status, reply.kind, overflowParam)
  return jsonResponse(
    reply.status,
    { error: { ...error, ...(reply.message !== undefined ? { message: reply.message } : {}) } },
    { ...headers, ...reply.headers },
  )
}

/**
 * Signed or encrypted `reasoning_details`, refused as OpenRouter passes on the
 * upstream's refusal: "Provider returned error" with the upstream body in
 * `metadata.raw`, whose `messages.N` counts the upstream's messages (the
 * system message is not one of them).
 */
const replayed = (body: unknown): ReadonlyArray<Replayed> => {
  const messages = objectsOf(body, "messages")
  return messages.flatMap((message, m) => {
    const upstream = m - messages.slice(0, m).filter((before) => before?.["role"] === "system" || before?.["role"] === "developer").length
    return objectsOf(message, "reasoning_details").flatMap((detail, d): ReadonlyArray<Replayed> => {
      const value = stringField(detail, "signature") ?? (detail?.["type"] === "reasoning.encrypted" ? stringField(detail, "data") : undefined)
      if (value === undefined) return []
      const raw = JSON.stringify({
        type: "error",
        error: { type: "invalid_request_error", message: `messages.${upstream}.content.${d}: Invalid \`signature\` in \`thinking\` block` },
      })
      return [{
        values: [value],
        refusal: { status: 400, body: { error: { message: "Provider returned error", code: 400, metadata: { raw, provider_name: "Anthropic" } } } },
      }]
    })
  })
}

export const format: WireFormat = {
  api: "openai-completions",
  matches: (path) => path.endsWith("/chat/completions"),
  modelOf: (_path, body) => modelField(body),
  streamHeaders: (context) => ({ "x-request-id": `req_${hex(`${context.seed}/request`, 32)}` }),
  render,
  error: (reply, context) => openAiErrorResponse(reply, context, "messages"),
  replayed,
  overflow: (tokens, window) => ({
    status: 400,
    kind: "context-overflow",
    message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. ` +
      "Please reduce the length of the messages.",
  }),
}
