/**
 * The node:http plumbing of the loopback: reading a request, answering it, and
 * playing a stream of server-sent events the way a reply asks — paced, cut off,
 * or hanging — while noticing a client that leaves, so nothing is written to a
 * closed connection and no timer outlives the exchange.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import type { StreamReply } from "../Reply.js"
import type { HttpResponse } from "../wire/Wire.js"

export const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

/** The parsed JSON body; the raw text when it is not JSON; undefined when empty. */
export const parseBody = (raw: string): unknown => {
  if (raw.length === 0) return undefined
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

export const headerRecord = (request: IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return headers
}

export const send = (response: ServerResponse, answer: HttpResponse): void => {
  response.writeHead(answer.status, answer.headers)
  response.end(answer.body)
}

/** Resolves after `ms`, or as soon as the response is closed. */
export const pause = (ms: number, response: ServerResponse): Promise<void> =>
  new Promise((resolve) => {
    if (response.destroyed) return resolve()
    const done = () => {
      clearTimeout(timer)
      response.off("close", done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    response.on("close", done)
  })

/** Resolves once the response is closed, by the client or by the server closing. */
const untilClosed = (response: ServerResponse): Promise<void> =>
  new Promise((resolve) => {
    if (response.destroyed) return resolve()
    response.once("close", () => resolve())
  })

export interface Playback {
  /** Called after each event is written. */
  readonly onEvent: () => void
  /** Called just before the server cuts the connection. */
  readonly onDrop: () => void
}

/**
 * Writes the SSE frames of a reply after its headers. A drop or stall point at
 * or past the last event still keeps the body from ending cleanly; when both
 * are set, the earlier wins (a drop on a tie).
 */
export const playStream = async (
  response: ServerResponse,
  headers: Readonly<Record<string, string>>,
  frames: ReadonlyArray<string>,
  reply: StreamReply,
  playback: Playback,
): Promise<void> => {
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    ...headers,
  })
  response.flushHeaders()
  const drop = reply.dropAfterEvents ?? Infinity
  const stall = reply.stallAfterEvents ?? Infinity
  const stopAt = Math.min(frames.length, drop, stall)
  for (let i = 0; i < stopAt; i++) {
    if (i > 0 && reply.delayMs !== undefined && reply.delayMs > 0) await pause(reply.delayMs, response)
    if (response.destroyed) return
    response.write(frames[i])
    playback.onEvent()
  }
  if (response.destroyed) return
  if (drop !== Infinity && drop <= stall) {
    playback.onDrop()
    // Let the frames already written reach the client, then cut the connection mid-body.
    response.socket?.destroySoon()
    return
  }
  if (stall !== Infinity) return untilClosed(response)
  response.end()
}
