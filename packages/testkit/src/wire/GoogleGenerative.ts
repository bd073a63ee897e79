/**
 * Gemini API streaming (`google-generative-ai` in pi-ai), as `@google/genai`
 * reads it: POST `<baseUrl>/models/<model>:streamGenerateContent?alt=sse`, SSE
 * of `data: <GenerateContentResponse>` separated by CRLF blank lines, each with
 * one candidate part, the last one with `finishReason` and the totals in
 * `usageMetadata`.
 *
 * baseUrl: pi-ai sets the SDK's apiVersion to "" and passes the baseUrl through,
 * so it must include the version, like the real
 * `https://generativelanguage.googleapis.com/v1beta`; point a provider at
 * `<url>/v1beta`.
 *
 * Parts: reasoning is `{text, thought: true}`, text is `{text}`, and a tool call
 * is one whole `{functionCall: {id, name, args}}` part (the API never streams
 * partial arguments). A block's signature rides as `thoughtSignature` on its
 * last part; redacted reasoning is an empty thought part carrying the data as
 * its signature. Adjacent blocks of one kind merge, as they do for pi-ai on the
 * real API. A tool call cut by the output limit arrives with the arguments
 * generated so far (the longest prefix that closes into an object) and the
 * candidate finishes with `MAX_TOKENS`.
 */
import type { Block, HttpErrorReply, StreamReply } from "../Reply.js"
import { base64url } from "./Ids.js"
import { closePartialObject } from "./PartialJson.js"
import {
  dataFrame,
  type HttpResponse,
  jsonResponse,
  objectsOf,
  type RenderContext,
  type Replayed,
  stringField,
  textDeltas,
  verbatimError,
  type WireFormat,
} from "./Wire.js"

const PATH = /\/models\/([^/]+):streamGenerateContent$/

type Part = Record<string, unknown>

/** Parts of one block; the signature goes on the last of them. */
const blockParts = (block: Block): ReadonlyArray<Part> => {
  const signed = (parts: ReadonlyArray<Part>, signature: string | undefined): ReadonlyArray<Part> =>
    signature === undefined
      ? parts
      : parts.map((part, i) => (i === parts.length - 1 ? { ...part, thoughtSignature: signature } : part))
  const texts = (text: string) => {
    const deltas = textDeltas(text)
    return deltas.length === 0 ? [""] : deltas
  }
  switch (block.type) {
    case "reasoning":
      return signed(texts(block.text).map((text) => ({ text, thought: true })), block.signature)
    case "redacted-reasoning":
      return [{ text: "", thought: true, thoughtSignature: block.data }]
    case "text":
      return signed(texts(block.text).map((text) => ({ text })), block.signature)
    case "tool-call": {
      const args = block.complete === false ? closePartialObject(block.arguments) : parseArguments(block.arguments)
      return signed([{ functionCall: { id: block.id, name: block.name, args } }], block.signature)
    }
  }
}

const parseArguments = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    // A whole-object format cannot carry malformed argument text; send what closes.
    return closePartialObject(text)
  }
}

const render = (reply: StreamReply, context: RenderContext): ReadonlyArray<string> => {
  const parts = reply.blocks.flatMap(blockParts)
  const responseId = reply.responseId ?? base64url(`${context.seed}/response`, 23)
  const modelVersion = reply.responseModel ?? context.model
  const promptDetails = [{ modality: "TEXT", tokenCount: reply.usage.input }]
  const running = {
    promptTokenCount: reply.usage.input,
    totalTokenCount: reply.usage.input,
    promptTokensDetails: promptDetails,
  }
  const final = {
    promptTokenCount: reply.usage.input,
    candidatesTokenCount: reply.usage.output,
    totalTokenCount: reply.usage.input + reply.usage.output,
    promptTokensDetails: promptDetails,
  }
  const finishReason = reply.finish === "max-tokens" ? "MAX_TOKENS" : "STOP"
  const chunk = (part: Part | undefined, last: boolean) => ({
    candidates: [{
      content: part === undefined ? { role: "model" } : { parts: [part], role: "model" },
      ...(last ? { finishReason } : {}),
      index: 0,
    }],
    usageMetadata: last ? final : running,
    modelVersion,
    responseId,
  })
  if (parts.length === 0) return [dataFrame(chunk(undefined, true), "\r\n\r\n")]
  return parts.map((part, i) => dataFrame(chunk(part, i === parts.length - 1), "\r\n\r\n"))
}

const errorStatus = (status: number): readonly [status: string, message: string] => {
  switch (status) {
    case 400:
      return ["INVALID_ARGUMENT", "Request contains an invalid argument."]
    case 401:
      return [
        "UNAUTHENTICATED",
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
      ]
    case 403:
      return ["PERMISSION_DENIED", "The caller does not have permission"]
    case 404:
      return ["NOT_FOUND", "models/unknown is not found for API version v1beta, or is not supported for generateContent."]
    case 429:
      return [
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
      ]
    case 503:
      return ["UNAVAILABLE", "The model is overloaded. Please try again later."]
    case 504:
      return ["DEADLINE_EXCEEDED", "Deadline expired before operation could complete."]
    default:
      return status >= 500
        ? ["INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"]
        : ["INVALID_ARGUMENT", "Request contains an invalid argument."]
  }
}

/** A `retry-after` header's delay in whole seconds (it may be seconds or a date), 30 without one. */
const delaySeconds = (retryAfter: string | undefined): number => {
  if (retryAfter === undefined || retryAfter.trim() === "") return 30
  const seconds = Number(retryAfter.trim())
  if (Number.isFinite(seconds) && seconds >= 0) return seconds
  const date = Date.parse(retryAfter)
  return Number.isNaN(date) ? 30 : Math.max(0, Math.ceil((date - Date.now()) / 1000))
}

const error = (reply: HttpErrorReply, _context: RenderContext): HttpResponse => {
  const verbatim = verbatimError(reply, {})
  if (verbatim !== undefined) return verbatim
  const [status, message] = reply.kind === "context-overflow"
    ? ["INVALID_ARGUMENT", "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576)."] as const
    : errorStatus(reply.status)
  const retryAfter = reply.headers?.["retry-after"]
  // Gemini states the retry delay in the body (RetryInfo), not only in a header.
  const details = reply.status === 429
    ? [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${delaySeconds(retryAfter)}s` }]
    : undefined
  return jsonResponse(
    reply.status,
    { error: { code: reply.status, message: reply.message ?? message, status, ...(details ? { details } : {}) } },
    { "content-type": "application/json; charset=UTF-8", ...reply.headers },
  )
}

/** Thought signatures, refused as Gemini refuses one it cannot verify (naming no part). */
const replayed = (body: unknown): ReadonlyArray<Replayed> =>
  objectsOf(body, "contents").flatMap((content) =>
    objectsOf(content, "parts").flatMap((part): ReadonlyArray<Replayed> => {
      const signature = stringField(part, "thoughtSignature") ?? stringField(part, "thought_signature")
      return signature === undefined ? [] : [{ values: [signature], refusal: { status: 400, message: "Corrupted thought signature." } }]
    })
  )

export const format: WireFormat = {
  api: "google-generative-ai",
  matches: (path) => PATH.test(path),
  modelOf: (path) => {
    const model = PATH.exec(path)?.[1]
    return model === undefined ? undefined : decodeURIComponent(model)
  },
  streamHeaders: () => ({}),
  render,
  error,
  replayed,
  overflow: (tokens, window) => ({
    status: 400,
    kind: "context-overflow",
    message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${window}).`,
  }),
}
