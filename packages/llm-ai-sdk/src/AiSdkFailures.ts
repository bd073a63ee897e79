/**
 * How an AI SDK failure becomes a durable `Failure`: one code the agent loop
 * acts on (retry later, ask for a key, compact the context, send refused
 * replay metadata provider-neutral, give up), with the status, retry delay,
 * request id and refused message when the provider said.
 *
 * The AI SDK's providers throw an `APICallError` for an HTTP error, carrying
 * the status, the response headers and body, and the request body that was
 * sent; a failure mid-stream arrives as an `error` part holding the
 * provider's error object. Both are read here, where they enter, and nowhere else.
 */
import { APICallError } from "@ai-sdk/provider"
import { codeForStatus, retryAfterMs, retryDelayMs } from "@turnlog/llm/HttpFailure"
import type { Failure, FailureCode, Message } from "@turnlog/protocol"

const REQUEST_ID_HEADERS = ["request-id", "x-request-id", "x-goog-request-id"] as const

const TIMEOUT = /timed? ?out|timeout|ETIMEDOUT|deadline exceeded/i
const TRANSPORT =
  /ECONNRESET|ECONNREFUSED|ENOTFOUND|EPIPE|EAI_AGAIN|socket|terminated|fetch failed|network|cannot connect|connection (?:error|closed|reset)|premature close|other side closed|UND_ERR/i
const RATE_LIMIT = /rate.?limit|too many requests|rate_limit_error/i
const OVERLOADED = /overloaded|server_error|internal server error|api_error/i
// The providers' texts for an input over the context window.
const OVERFLOW = /prompt is too long|exceeds the context window|maximum context length|context_length_exceeded|input token count \(\d+\) exceeds the maximum/i
// The providers' texts for a refused signature or encrypted reasoning item.
const REPLAY_REJECTIONS: ReadonlyArray<RegExp> = [
  /invalid `?signature`? in `?thinking`? block/i,
  /`?thinking`? or `?redacted_thinking`? blocks? .*cannot be modified/i,
  /item with id '?rs_[\w-]*'? not found/i,
  /encrypted content .*could not be (?:verified|decrypted)|could not be decrypted or parsed|invalid_encrypted_content/i,
  /missing a `?thought_?signature`?/i,
  /corrupted thought signature|thought[_ ]signature is not valid|invalid `?thought_?signature`?/i,
]
const WIRE_POSITION = /messages\.(\d+)\.content\.(\d+)/
const ITEM_ID = /\b(rs_[\w-]+)/

export { retryAfterMs }

/** The message of anything thrown or streamed as an error. */
export const messageOf = (cause: unknown): string => {
  if (cause instanceof Error) return cause.message || cause.name
  if (typeof cause === "string") return cause
  if (typeof cause === "object" && cause !== null) {
    // Anthropic's mid-stream error object: { type: "overloaded_error", message }.
    const record = cause as Record<string, unknown>
    if (typeof record["message"] === "string") {
      return typeof record["type"] === "string" ? `${record["type"]}: ${record["message"]}` : record["message"]
    }
  }
  try {
    return JSON.stringify(cause) ?? String(cause)
  } catch {
    return String(cause)
  }
}

/** A cause and the causes under it (undici's "terminated" holds the socket's "other side closed"), a few deep. */
const causesOf = (cause: unknown): string => {
  const texts: Array<string> = []
  for (let at: unknown = cause, depth = 0; at !== undefined && at !== null && depth < 3; depth++) {
    const text = messageOf(at)
    if (text !== "" && !texts.includes(text)) texts.push(text)
    at = at instanceof Error ? at.cause : undefined
  }
  return texts.join(": ")
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The signature or redacted data at `messages.N.content.M` of the body sent (else the first of that message). */
const metadataAt = (body: unknown, message: number, content: number): string | undefined => {
  const messages = isRecord(body) ? body["messages"] : undefined
  const blocks = Array.isArray(messages) && isRecord(messages[message]) ? messages[message]["content"] : undefined
  if (!Array.isArray(blocks)) return undefined
  const of = (block: unknown) =>
    !isRecord(block) ? undefined : typeof block["signature"] === "string" && block["signature"] !== ""
      ? block["signature"]
      : typeof block["data"] === "string" && block["data"] !== ""
      ? block["data"]
      : undefined
  return of(blocks[content]) ?? blocks.map(of).find((found) => found !== undefined)
}

/**
 * The request message a refusal of replayed metadata is about: the provider
 * names a position in the body it received (Anthropic) or a reasoning item id
 * (OpenAI Responses); either leads to a value some message's replay state
 * holds verbatim. Nothing found: no index, never a guess.
 */
const locate = (text: string, messages: ReadonlyArray<Message>, body: unknown): number | undefined => {
  const position = WIRE_POSITION.exec(text)
  const item = ITEM_ID.exec(text)
  const needle = position !== null ? metadataAt(body, Number(position[1]), Number(position[2])) : item?.[1]
  if (needle === undefined) return undefined
  const quoted = JSON.stringify(needle).slice(1, -1)
  const index = messages.findIndex((message) =>
    message.source.kind === "model" && message.source.replayState !== undefined &&
    JSON.stringify(message.source.replayState).includes(quoted)
  )
  return index === -1 ? undefined : index
}

export interface Context {
  /** The request's messages, for the index of a refused one. */
  readonly messages?: ReadonlyArray<Message>
  /** Scrubs secrets from provider texts before they become durable. */
  readonly redact?: (text: string) => string
  readonly now?: number
}

/** Anything a provider threw or streamed as an error, classified. */
export const classify = (cause: unknown, context: Context = {}): Failure => {
  const api = APICallError.isInstance(cause) ? cause : undefined
  const redact = context.redact ?? ((text: string) => text)
  const base = messageOf(cause)
  const causeText = api?.cause === undefined ? "" : causesOf(api.cause)
  // A failure after a successful status (a stream cut mid-way) says what happened only in its cause.
  const withCause = causeText !== "" && (api?.statusCode === undefined || api.statusCode < 400)
  const message = redact(withCause ? `${base}: ${causeText}` : base)
  // Everything the provider said, for patterns: the body often holds the code the message leaves out.
  const said = `${message}\n${api?.responseBody ?? ""}`
  const status = api?.statusCode
  const code: FailureCode = OVERFLOW.test(said)
    ? "CONTEXT_WINDOW_EXCEEDED"
    // Before the status: OpenAI answers a reasoning item it does not keep with a 404.
    : REPLAY_REJECTIONS.some((pattern) => pattern.test(said))
    ? "REPLAY_REJECTED"
    : (status === undefined ? undefined : codeForStatus(status)) ??
      (TIMEOUT.test(said)
        ? "TIMEOUT"
        : RATE_LIMIT.test(said)
        ? "RATE_LIMIT"
        : TRANSPORT.test(said)
        ? "TRANSPORT"
        : OVERLOADED.test(said)
        ? "SERVER"
        : "PROVIDER_ERROR")
  const failure: { -readonly [K in keyof Failure]: Failure[K] } = {
    message: message === "" ? "the provider reported an error without a message" : message,
    code,
  }
  if (status !== undefined && status >= 400) failure.status = status
  const headers = api?.responseHeaders ?? {}
  const retry = retryAfterMs(headers, context.now)
  if (retry !== undefined) failure.retryAfterMs = retry
  else {
    // Gemini states the delay only in the error body (google.rpc.RetryInfo).
    const delay = retryDelayMs(said)
    if (delay !== undefined) failure.retryAfterMs = delay
  }
  const requestId = REQUEST_ID_HEADERS.map((name) => headers[name]).find((value) => value !== undefined && value !== "")
  if (requestId !== undefined) failure.requestId = requestId
  if (code === "REPLAY_REJECTED" && context.messages !== undefined) {
    const index = locate(said, context.messages, api?.requestBodyValues)
    if (index !== undefined) failure.messageIndex = index
  }
  return failure
}
