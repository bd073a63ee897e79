/**
 * A provider's failure message as a person reads it. Providers answer an
 * error with a JSON body, and the SDKs put the status before it
 * (`529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},…}`);
 * the log keeps that message as it came, and what is shown is its status,
 * the error's kind and its sentence: `529 overloaded_error: Overloaded`. A
 * message of any other shape is shown as it is.
 */

/** A status, then (after a space or a colon) a JSON object or list to the end. */
const STATUS_AND_BODY = /^([1-5]\d\d)[\s:]+(\{[\s\S]*\}|\[[\s\S]*\])\s*$/

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)

/**
 * The error inside a body, in the shapes the providers use: Anthropic's
 * `{"type":"error","error":{"type","message"}}`, OpenAI's
 * `{"error":{"message","type","code"}}`, Google's `{"error":{"code","message","status"}}`
 * (each also as the first element of a list), or a bare `{"message"}`.
 */
const errorOf = (body: unknown): { readonly kind?: string; readonly message: string } | undefined => {
  const top = Array.isArray(body) ? body[0] : body
  if (typeof top !== "object" || top === null) return undefined
  const record = top as Record<string, unknown>
  const inner = typeof record.error === "object" && record.error !== null ? (record.error as Record<string, unknown>) : record
  const message = text(inner.message) ?? text(record.message)
  if (message === undefined) return undefined
  const kind = text(inner.type) ?? text(inner.status) ?? text(inner.code)
  return kind === undefined ? { message } : { kind, message }
}

export const readable = (message: string): string => {
  const parts = STATUS_AND_BODY.exec(message.trim())
  if (parts === null) return message
  let body: unknown
  try {
    body = JSON.parse(parts[2]!)
  } catch {
    return message
  }
  const error = errorOf(body)
  if (error === undefined) return message
  return error.kind === undefined || error.message.startsWith(error.kind)
    ? `${parts[1]} ${error.message}`
    : `${parts[1]} ${error.kind}: ${error.message}`
}
