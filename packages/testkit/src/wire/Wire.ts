/**
 * The shape every wire format module shares: how a request path is recognised,
 * how a wire-neutral reply becomes that provider's server-sent events, and how
 * an HTTP failure is spelled in that provider's error body. The server only
 * talks to this interface, so adding a format is adding one module.
 */
import type { HttpErrorReply, StreamReply } from "../Reply.js"

/** The pi-ai api names of the formats the loopback speaks. */
export type Api = "openai-completions" | "anthropic-messages" | "openai-responses" | "google-generative-ai"

export interface RenderContext {
  /** Unique per request within a server and stable across runs: the seed of every derived id. */
  readonly seed: string
  /** The model the request asked for. */
  readonly model: string
  /** The parsed request body (some providers echo request settings back). */
  readonly requestBody: unknown
}

export interface HttpResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export interface WireFormat {
  readonly api: Api
  /** Whether a request path (without query) belongs to this format. */
  readonly matches: (path: string) => boolean
  readonly modelOf: (path: string, body: unknown) => string | undefined
  /** Extra response headers of a successful stream (request ids). */
  readonly streamHeaders: (context: RenderContext) => Readonly<Record<string, string>>
  /** The complete SSE frames of the reply, each ending with its blank-line separator. */
  readonly render: (reply: StreamReply, context: RenderContext) => ReadonlyArray<string>
  /** The provider's own error response for a failure reply. */
  readonly error: (reply: HttpErrorReply, context: RenderContext) => HttpResponse
  /** The signed or encrypted metadata a request body replays, each with the provider's refusal of it. */
  readonly replayed: (body: unknown) => ReadonlyArray<Replayed>
  /** The provider's refusal of an input of `tokens` (estimated) over a context window of `window`. */
  readonly overflow: (tokens: number, window: number) => HttpErrorReply
}

/** One piece of replayed metadata in a request: its values as the provider minted them, and how it refuses them. */
export interface Replayed {
  readonly values: ReadonlyArray<string>
  readonly refusal: HttpErrorReply
}

/** The objects of an array field of a JSON object (a request body's `messages`, a message's `content`). */
export const objectsOf = (value: unknown, field: string): ReadonlyArray<Readonly<Record<string, unknown>> | undefined> => {
  if (typeof value !== "object" || value === null) return []
  const array = (value as Record<string, unknown>)[field]
  if (!Array.isArray(array)) return []
  return array.map((item) => (typeof item === "object" && item !== null ? item as Record<string, unknown> : undefined))
}

/** A field's value when it is a non-empty string. */
export const stringField = (value: Readonly<Record<string, unknown>> | undefined, field: string): string | undefined => {
  const found = value?.[field]
  return typeof found === "string" && found !== "" ? found : undefined
}

/** One SSE frame with only a data field. */
export const dataFrame = (data: unknown, separator = "\n\n"): string => `data: ${typeof data === "string" ? data : JSON.stringify(data)}${separator}`

/** One SSE frame with an event name and a JSON data field. */
export const eventFrame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`

/**
 * Splits text the way a model streams it: a new delta starts at each word, and
 * every character (including surrounding whitespace) lands in exactly one delta.
 */
export const textDeltas = (text: string): ReadonlyArray<string> => {
  const deltas: Array<string> = []
  let current = ""
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    const startsWord = /\s/.test(char) && i > 0 && !/\s/.test(text[i - 1]!)
    if (startsWord && current.length > 0) {
      deltas.push(current)
      current = ""
    }
    current += char
  }
  if (current.length > 0) deltas.push(current)
  return deltas
}

/** Splits argument JSON into a few arbitrary pieces, as providers do (not on token boundaries). */
export const jsonDeltas = (json: string, pieces = 3): ReadonlyArray<string> => {
  if (json.length === 0) return []
  const size = Math.max(1, Math.ceil(json.length / pieces))
  const deltas: Array<string> = []
  for (let i = 0; i < json.length; i += size) deltas.push(json.slice(i, i + size))
  return deltas
}

/** The JSON content type every provider uses for its error bodies. */
export const jsonResponse = (
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>>,
): HttpResponse => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
})

/**
 * A failure reply with a verbatim `body`: sent as given. A string that is JSON
 * keeps the JSON content type, so the SDKs parse it like a real error body.
 */
export const verbatimError = (
  reply: HttpErrorReply,
  headers: Readonly<Record<string, string>>,
): HttpResponse | undefined => {
  if (reply.body === undefined) return undefined
  if (typeof reply.body !== "string") return jsonResponse(reply.status, reply.body, { ...headers, ...reply.headers })
  const isJson = (() => {
    try {
      JSON.parse(reply.body)
      return true
    } catch {
      return false
    }
  })()
  return {
    status: reply.status,
    headers: { "content-type": isJson ? "application/json" : "text/plain; charset=utf-8", ...headers, ...reply.headers },
    body: reply.body,
  }
}

/** The `model` field of an OpenAI or Anthropic (Google names the model in the path) request body. */
export const modelField = (body: unknown): string | undefined => {
  if (typeof body !== "object" || body === null) return undefined
  const model = (body as { model?: unknown }).model
  return typeof model === "string" ? model : undefined
}
