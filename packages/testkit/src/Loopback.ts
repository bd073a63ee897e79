/**
 * A loopback model provider: a real HTTP server on 127.0.0.1 that speaks the
 * streaming wire formats pi-ai's providers consume, so every test above the
 * adapter — and the adapter itself — runs keyless against the real SDK code
 * paths instead of a mock of them.
 *
 * Replies are scripted wire-neutrally (see `Reply`) and played per request in
 * order from one queue; each is rendered in the format of the request's path.
 * Every request is recorded (method, path, query, headers, parsed body) along
 * with how its exchange ended, which is what a test asserts on: the body a
 * continuation sent, or that a cancelled stream closed its HTTP request.
 *
 * Where each api's `baseUrl` points (see `baseUrl(api)`; the wire modules say why):
 *   openai-completions   <url>/v1      → POST /v1/chat/completions
 *   openai-responses     <url>/v1      → POST /v1/responses
 *   anthropic-messages   <url>         → POST /v1/messages?beta=true
 *   google-generative-ai <url>/v1beta  → POST /v1beta/models/<model>:streamGenerateContent?alt=sse
 * Routing looks only at the end of the path, so `<url>` itself also works for all.
 */
import { Effect, Either, type Scope } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { headerRecord, parseBody, pause, playStream, readBody, send } from "./internal/Http.js"
import { type MutableRecord, type RecordedRequest } from "./internal/Records.js"
import * as Records from "./internal/Records.js"
import * as OutputLimit from "./OutputLimit.js"
import * as Refusals from "./Refusals.js"
import { decodeReply, isHttpError, type Reply, type ReplyInput, type StreamReply } from "./Reply.js"
import * as AnthropicMessages from "./wire/AnthropicMessages.js"
import * as GoogleGenerative from "./wire/GoogleGenerative.js"
import * as OpenAiCompletions from "./wire/OpenAiCompletions.js"
import * as OpenAiResponses from "./wire/OpenAiResponses.js"
import type { Api, RenderContext, WireFormat } from "./wire/Wire.js"

export type { Outcome, RecordedRequest } from "./internal/Records.js"
export type { Refusal, ReplayRefusal } from "./Refusals.js"
export type { Api } from "./wire/Wire.js"
export {
  type Block,
  decodeReply,
  decodeScript,
  type Finish,
  type HttpErrorReply,
  type Reply,
  type ReplyInput,
  type StreamReply,
} from "./Reply.js"

const formats: ReadonlyArray<WireFormat> = [
  OpenAiCompletions.format,
  AnthropicMessages.format,
  OpenAiResponses.format,
  GoogleGenerative.format,
]

export interface Server {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  /** The baseUrl a pi-ai model of this api uses, shaped like the real provider's. */
  readonly baseUrl: (api: Api) => string
  /** Queue replies for the next requests. Throws on a reply that does not decode. */
  readonly enqueue: (...replies: ReadonlyArray<ReplyInput>) => void
  /**
   * Refuse requests replaying signed or encrypted metadata, as the provider
   * does: that minted by the reply to request `mintedBy`, or any in the next
   * `next` requests carrying some. Refused requests take no reply from the queue.
   */
  readonly refuseReplay: (rule: Refusals.ReplayRefusal) => void
  /** Refuse requests whose estimated input (a token per four characters of body) exceeds `tokens`; undefined: no limit. */
  readonly setContextWindow: (tokens: number | undefined) => void
  /** Replies queued and not yet played. */
  readonly pending: () => number
  /** A snapshot of every request so far, in arrival order. */
  readonly requests: () => ReadonlyArray<RecordedRequest>
  /** Resolves once `count` requests have arrived. */
  readonly waitForRequests: (count: number) => Promise<ReadonlyArray<RecordedRequest>>
  /** Resolves with request `index` once its exchange has ended (arrived and no longer in flight). */
  readonly settled: (index: number) => Promise<RecordedRequest>
  /** Stop listening and destroy every open connection. */
  readonly close: () => Promise<void>
}

export interface Options {
  /** Replies queued before the first request. */
  readonly replies?: ReadonlyArray<ReplyInput>
  /** The context window requests are held to (see `Server.setContextWindow`). */
  readonly contextWindow?: number
  /**
   * Hold each answer to the request's own answer budget (`max_tokens` or its
   * wire's spelling), as a real provider does: a longer one is cut and
   * finishes at the output limit (see `OutputLimit`). Off by default: a
   * scripted reply is played as written.
   */
  readonly honourMaxTokens?: boolean
}

const CONTROL = "/__loopback/"

const decodeOrThrow = (input: ReplyInput, position: number): Reply =>
  Either.getOrElse(decodeReply(input), (message) => {
    throw new Error(`loopback: reply ${position} is not a valid reply:\n${message}`)
  })

export const start = (options: Options = {}): Promise<Server> => {
  const queue: Array<Reply> = []
  const records = Records.make()
  const refusals = Refusals.make({ contextWindow: options.contextWindow })

  const enqueue = (...replies: ReadonlyArray<ReplyInput>) => {
    const decoded = replies.map((reply, i) => decodeOrThrow(reply, queue.length + i + 1))
    queue.push(...decoded)
  }
  enqueue(...(options.replies ?? []))

  const stream = (
    response: ServerResponse,
    record: MutableRecord,
    format: WireFormat,
    reply: StreamReply,
    context: RenderContext,
  ) => {
    record.status = 200
    const rendered = format.render(reply, context)
    refusals.minted(record.index, rendered)
    const at = reply.malformedAfterEvents
    const frames = at === undefined ? rendered : [...rendered.slice(0, at), 'data: {"truncated": \n\n', ...rendered.slice(at)]
    return playStream(response, format.streamHeaders(context), frames, reply, {
      onEvent: () => record.events++,
      onDrop: () => records.end(record, "dropped"),
    })
  }

  const control = (request: IncomingMessage, response: ServerResponse, path: string, raw: string) => {
    const json = (status: number, body: unknown) => send(response, { status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    if (request.method === "GET" && path === `${CONTROL}requests`) return json(200, records.all())
    if (request.method === "POST" && path === `${CONTROL}replies`) {
      const body = parseBody(raw)
      try {
        enqueue(...(Array.isArray(body) ? body : [body]) as ReadonlyArray<ReplyInput>)
        return json(200, { pending: queue.length })
      } catch (error) {
        return json(400, { error: { message: error instanceof Error ? error.message : String(error) } })
      }
    }
    if (request.method === "POST" && path === `${CONTROL}refusals`) {
      return Either.match(Refusals.decodeControl(parseBody(raw)), {
        onLeft: (message) => json(400, { error: { message: `loopback: not a refusal rule:\n${message}` } }),
        onRight: (rule) => {
          if ("contextWindow" in rule) refusals.setContextWindow(rule.contextWindow ?? undefined)
          else refusals.refuseReplay(rule)
          return json(200, rule)
        },
      })
    }
    return json(404, { error: { message: `loopback: no control endpoint ${request.method} ${path}` } })
  }

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1")
    const raw = await readBody(request)
    if (url.pathname.startsWith(CONTROL)) return control(request, response, url.pathname, raw)
    const body = parseBody(raw)
    const format = request.method === "POST" ? formats.find((f) => f.matches(url.pathname)) : undefined
    const record: MutableRecord = {
      index: records.next(),
      method: request.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: headerRecord(request),
      body,
      api: format?.api,
      model: format?.modelOf(url.pathname, body),
      refused: undefined,
      status: undefined,
      events: 0,
      outcome: "in-flight",
      aborted: false,
    }
    records.add(record)
    response.on("finish", () => records.end(record, "completed"))
    response.on("close", () => records.end(record, records.closedBy()))

    if (format === undefined) {
      record.status = 404
      return send(response, {
        status: 404,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          error: {
            message: `loopback: no wire format serves ${record.method} ${record.path}; ` +
              "known: POST …/chat/completions, …/v1/messages, …/responses, …/models/<model>:streamGenerateContent",
          },
        }),
      })
    }
    const context: RenderContext = { seed: `request-${record.index}`, model: record.model ?? "unknown", requestBody: body }
    const refused = refusals.check(format, body, raw)
    if (refused !== undefined) {
      const answer = format.error(refused.reply, context)
      record.refused = refused.refusal
      record.status = answer.status
      return send(response, answer)
    }
    const queued = queue.shift()
    const limit = options.honourMaxTokens === true ? OutputLimit.requested(body) : undefined
    const reply = queued === undefined || isHttpError(queued) || limit === undefined
      ? queued
      : OutputLimit.apply(queued, limit)
    if (reply === undefined) {
      const answer = format.error({
        status: 500,
        message: `loopback: no scripted reply left for request ${record.index + 1} (${record.method} ${record.path})`,
      }, context)
      record.status = answer.status
      return send(response, answer)
    }
    if (isHttpError(reply)) {
      if (reply.delayMs !== undefined && reply.delayMs > 0) await pause(reply.delayMs, response)
      if (response.destroyed) return
      const answer = format.error(reply, context)
      record.status = answer.status
      return send(response, answer)
    }
    return stream(response, record, format, reply, context)
  }

  const server = createServer({ keepAlive: true }, (request, response) => {
    handle(request, response).catch((error: unknown) => {
      process.stderr.write(`loopback: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
      if (!response.headersSent) {
        send(response, { status: 500, headers: { "content-type": "text/plain" }, body: `loopback: ${String(error)}` })
      } else response.destroy()
    })
  })

  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject)
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      resolve({
        url,
        baseUrl: (api) => {
          switch (api) {
            case "openai-completions":
            case "openai-responses":
              return `${url}/v1`
            case "anthropic-messages":
              return url
            case "google-generative-ai":
              return `${url}/v1beta`
          }
        },
        enqueue,
        refuseReplay: refusals.refuseReplay,
        setContextWindow: refusals.setContextWindow,
        pending: () => queue.length,
        requests: records.all,
        waitForRequests: records.waitForRequests,
        settled: records.settled,
        close: () =>
          new Promise<void>((resolve) => {
            if (records.isClosing()) return resolve()
            records.startClosing()
            server.close(() => {
              records.closed()
              resolve()
            })
            server.closeAllConnections()
            records.dropInFlight()
          }),
      })
    })
  })
}

/** A loopback server for the scope, closed when the scope ends. */
export const makeWith = (options: Options = {}): Effect.Effect<Server, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => start(options)),
    (server) => Effect.promise(() => server.close()),
  )

/** A loopback server with an empty queue for the scope; `enqueue` replies on it. */
export const make: Effect.Effect<Server, never, Scope.Scope> = makeWith()
