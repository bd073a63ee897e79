/**
 * What an HTTP answer says about a failed provider request, the same for every
 * adapter: the failure code a status means, and how long the server asked us
 * to wait (headers, or Gemini's `retryDelay` in the body). Each adapter maps
 * its own library's errors and uses these for the parts the wire decides.
 */
import type { FailureCode } from "@turnlog/protocol"

/** The code an HTTP status means, or `undefined` for a status that is not a failure. */
export const codeForStatus = (status: number): FailureCode | undefined => {
  if (status === 401 || status === 403) return "AUTH"
  if (status === 429) return "RATE_LIMIT"
  if (status === 408 || status === 504) return "TIMEOUT"
  if (status === 413) return "CONTEXT_WINDOW_EXCEEDED"
  if (status >= 500) return "SERVER"
  if (status >= 400) return "INVALID_REQUEST"
  return undefined
}

/** Milliseconds the server asked us to wait, from `retry-after-ms` or `retry-after` (seconds or a date). */
export const retryAfterMs = (headers: Readonly<Record<string, string>>, now: number = Date.now()): number | undefined => {
  const ms = headers["retry-after-ms"]
  if (ms !== undefined) {
    const value = Number.parseFloat(ms)
    if (Number.isFinite(value) && value >= 0) return Math.round(value)
  }
  const after = headers["retry-after"]?.trim()
  if (after === undefined || after === "") return undefined
  const seconds = Number(after)
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000)
  const date = Date.parse(after)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

// A protobuf Duration in JSON: `"retryDelay": "45.837906927s"`.
const RETRY_DELAY = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/

/** Milliseconds a Gemini error body asks us to wait (its `RetryInfo.retryDelay`), when it names one. */
export const retryDelayMs = (body: string): number | undefined => {
  const delay = RETRY_DELAY.exec(body)
  return delay === null ? undefined : Math.round(Number(delay[1]) * 1000)
}
