/**
 * How a provider failure becomes a durable `Failure`: one code the agent loop
 * can act on (retry later, ask for a key, compact the context, send refused
 * replay metadata provider-neutral, give up), plus the status, retry delay,
 * request id and refused message when the provider told us.
 *
 * pi-ai folds HTTP errors into a message string, so the adapter watches the
 * responses itself (a fetch wrapper, see `observeFetch`) and classification
 * prefers what the wire said over what the message text suggests.
 */
import { codeForStatus, retryAfterMs, retryDelayMs } from "@turnlog/llm/HttpFailure"
import type { Failure, FailureCode } from "@turnlog/protocol"

/** The parts of an HTTP response a failure can name. Header names are lower-case. */
export interface HttpResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

export interface Observed {
  /** The last HTTP response of the request, if one arrived. */
  readonly response: () => HttpResponse | undefined
  /** The body of the last request sent, when it was text (what a refusal's `messages.N` points into). */
  readonly requestBody: () => string | undefined
  readonly fetch: typeof globalThis.fetch
}

const REQUEST_ID_HEADERS = ["request-id", "x-request-id", "x-goog-request-id"] as const

/**
 * A fetch that remembers the status and headers of the responses it returns,
 * and the body of the request it sent (never its headers, so never its key).
 * Bodies are untouched.
 */
export const observeFetch = (base: typeof globalThis.fetch = globalThis.fetch): Observed => {
  let last: HttpResponse | undefined
  let body: string | undefined
  const fetch: typeof globalThis.fetch = async (input, init) => {
    body = typeof init?.body === "string" ? init.body : undefined
    const response = await base(input, init)
    const headers: Record<string, string> = {}
    response.headers.forEach((value, key) => {
      if (key === "retry-after" || key === "retry-after-ms" || (REQUEST_ID_HEADERS as ReadonlyArray<string>).includes(key)) {
        headers[key] = value
      }
    })
    last = { status: response.status, headers }
    return response
  }
  return { response: () => last, requestBody: () => body, fetch }
}

export { retryAfterMs }

const requestIdOf = (headers: Readonly<Record<string, string>>): string | undefined => {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers[name]
    if (value !== undefined && value !== "") return value
  }
  return undefined
}

// SDK messages start with the status ("429 Too many requests", "401: {...}") when pi-ai had no body to add.
const LEADING_STATUS = /^([1-5]\d\d)(?=[\s:(]|$)/
const TIMEOUT = /timed? ?out|timeout|ETIMEDOUT|deadline exceeded/i
const TRANSPORT =
  /ECONNRESET|ECONNREFUSED|ENOTFOUND|EPIPE|EAI_AGAIN|socket|terminated|fetch failed|network|connection (?:error|closed|reset)|premature close|other side closed|aborted by the server|UND_ERR/i
const RATE_LIMIT = /rate.?limit|too many requests/i

/**
 * Where a provider's refusal of replayed metadata points: Anthropic names the
 * request position (`messages.3.content.1: …`), OpenAI Responses the item id
 * (`Item with id 'rs_…' not found`); Gemini names neither.
 */
export type ReplayLocator =
  | { readonly _tag: "WirePosition"; readonly message: number; readonly content: number }
  | { readonly _tag: "ItemId"; readonly id: string }

// The providers' own texts for a refused signature or encrypted reasoning item (see the loopback's wire modules).
const REPLAY_REJECTIONS: ReadonlyArray<RegExp> = [
  /invalid `?signature`? in `?thinking`? block/i, // Anthropic: a signature minted elsewhere
  /`?thinking`? or `?redacted_thinking`? blocks? .*cannot be modified/i, // Anthropic: a changed thinking block
  /item with id '?rs_[\w-]*'? not found/i, // OpenAI Responses: a reasoning item the server does not keep
  /encrypted content .*could not be (?:verified|decrypted)|could not be decrypted or parsed|invalid_encrypted_content/i, // OpenAI Responses
  /missing a `?thought_?signature`?/i, // Gemini: "Function call is missing a thought_signature in functionCall parts"
  /corrupted thought signature|thought[_ ]signature is not valid|invalid `?thought_?signature`?/i, // Gemini
]

const WIRE_POSITION = /messages\.(\d+)\.content\.(\d+)/
const ITEM_ID = /\b(rs_[\w-]+)/

/** Whether a failure message is a provider refusing replayed metadata, and where it points when it says. */
export const replayRejection = (message: string): { readonly locator: ReplayLocator | undefined } | undefined => {
  if (!REPLAY_REJECTIONS.some((pattern) => pattern.test(message))) return undefined
  const position = WIRE_POSITION.exec(message)
  if (position !== null) {
    return { locator: { _tag: "WirePosition", message: Number(position[1]), content: Number(position[2]) } }
  }
  const item = ITEM_ID.exec(message)
  return { locator: item === null ? undefined : { _tag: "ItemId", id: item[1]! } }
}

export interface ClassifyOptions {
  /** The last HTTP response; only an error status (≥ 400) says anything about the failure. */
  readonly response?: HttpResponse | undefined
  /** pi-ai recognised the message as a context-window overflow. */
  readonly overflow?: boolean
  /** The request message a refusal points at, when the request can say (see `ReplayLocator`). */
  readonly locate?: ((locator: ReplayLocator) => number | undefined) | undefined
  readonly now?: number
}

/** A failure message from pi-ai (or a throw), classified. */
export const classify = (message: string, options: ClassifyOptions = {}): Failure => {
  const response = options.response !== undefined && options.response.status >= 400 ? options.response : undefined
  const leading = LEADING_STATUS.exec(message.trimStart())
  const status = response?.status ?? (leading === null ? undefined : Number(leading[1]))
  const rejection = options.overflow === true ? undefined : replayRejection(message)
  const code: FailureCode = options.overflow === true
    ? "CONTEXT_WINDOW_EXCEEDED"
    // Before the status: OpenAI answers a reasoning item it does not keep with a 404.
    : rejection !== undefined
    ? "REPLAY_REJECTED"
    : (status === undefined ? undefined : codeForStatus(status)) ??
      (TIMEOUT.test(message)
        ? "TIMEOUT"
        : RATE_LIMIT.test(message)
        ? "RATE_LIMIT"
        : TRANSPORT.test(message)
        ? "TRANSPORT"
        : "PROVIDER_ERROR")
  const failure: { -readonly [K in keyof Failure]: Failure[K] } = {
    message: message === "" ? "the provider reported an error without a message" : message,
    code,
  }
  if (status !== undefined && status >= 400) failure.status = status
  if (response !== undefined) {
    const retry = retryAfterMs(response.headers, options.now)
    if (retry !== undefined) failure.retryAfterMs = retry
    const requestId = requestIdOf(response.headers)
    if (requestId !== undefined) failure.requestId = requestId
  }
  if (rejection?.locator !== undefined) {
    const index = options.locate?.(rejection.locator)
    if (index !== undefined) failure.messageIndex = index
  }
  if (failure.retryAfterMs === undefined) {
    // Gemini states the delay only in the error body (google.rpc.RetryInfo), which is the message.
    const delay = retryDelayMs(message)
    if (delay !== undefined) failure.retryAfterMs = delay
  }
  return failure
}

/** The message of anything thrown. */
export const messageOf = (cause: unknown): string => {
  if (cause instanceof Error) return cause.message || cause.name
  if (typeof cause === "string") return cause
  try {
    return JSON.stringify(cause) ?? String(cause)
  } catch {
    return String(cause)
  }
}
