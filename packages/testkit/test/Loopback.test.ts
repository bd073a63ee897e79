/**
 * The loopback server itself: failure replies as pi-ai reports them in every
 * format, connections cut or cancelled mid-stream, the queue, the recording,
 * and the Effect constructor's lifetime.
 */
import { isContextOverflow } from "@earendil-works/pi-ai"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Loopback } from "../src/index.js"
import { run, user } from "./fixtures/PiAi.js"

const APIS: ReadonlyArray<Loopback.Api> = [
  "openai-completions",
  "anthropic-messages",
  "openai-responses",
  "google-generative-ai",
]

/** How each SDK, through pi-ai, puts the HTTP status into the error message. */
const statusMark: Record<Loopback.Api, (status: number) => string> = {
  "openai-completions": (status) => `${status}: {`,
  "anthropic-messages": (status) => `${status} {"type":"error"`,
  "openai-responses": (status) => `loopback API error (${status}): {`,
  "google-generative-ai": (status) => `{"error":{"code":${status},`,
}

describe.each(APIS)("failure replies over %s", (api) => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  const failWith = async (reply: Loopback.ReplyInput) => {
    server.enqueue(reply)
    const { message } = await run(server, api, [user("Hi")])
    expect(message.stopReason).toBe("error")
    expect(message.content).toEqual([])
    return message
  }

  it.each([401, 429, 500])("HTTP %i is an error event with the status in its message", async (status) => {
    const message = await failWith({ status, headers: status === 429 ? { "retry-after": "7" } : {} })
    expect(message.errorMessage?.startsWith(statusMark[api](status))).toBe(true)
    expect(isContextOverflow(message)).toBe(false)
    expect(server.requests().at(-1)).toMatchObject({ api, status, outcome: "completed" })
  })

  it("a 429 carries its retry-after header", async () => {
    server.enqueue({ status: 429, headers: { "retry-after": "7" } })
    const request = server.requests().length
    await run(server, api, [user("Hi")])
    expect(server.requests()[request]).toMatchObject({ status: 429 })
    server.enqueue({ status: 429, headers: { "retry-after": "7" } })
    const raw = await fetch(`${server.url}${server.requests()[request]!.path}`, { method: "POST", body: "{}" })
    expect(raw.status).toBe(429)
    expect(raw.headers.get("retry-after")).toBe("7")
    expect(raw.headers.get("content-type")).toMatch(/^application\/json/)
  })

  it("a context overflow is the provider's own 400 that pi-ai recognises", async () => {
    const message = await failWith({ status: 400, kind: "context-overflow" })
    expect(message.errorMessage?.startsWith(statusMark[api](400))).toBe(true)
    expect(isContextOverflow(message)).toBe(true)
  })

  it("a custom message goes inside the provider's error body", async () => {
    const message = await failWith({ status: 400, message: "tools[0].name: String should match pattern" })
    expect(message.errorMessage).toContain("tools[0].name: String should match pattern")
  })

  it("a request with nothing queued is a clear 500", async () => {
    expect(server.pending()).toBe(0)
    const { message } = await run(server, api, [user("Hi")])
    const index = server.requests().length
    expect(message.stopReason).toBe("error")
    expect(message.errorMessage).toContain(`loopback: no scripted reply left for request ${index}`)
    expect(message.errorMessage?.startsWith(statusMark[api](500))).toBe(true)
    expect(server.requests().at(-1)).toMatchObject({ status: 500, outcome: "completed" })
  })

  it("a connection dropped mid-stream is an error after the events that made it", async () => {
    server.enqueue({
      blocks: [{ type: "text", text: "One two three four five six" }],
      dropAfterEvents: 3,
    })
    const { message } = await run(server, api, [user("Hi")])
    expect(message.stopReason).toBe("error")
    expect(message.errorMessage).toMatch(/terminated|other side closed|socket/i)
    const request = await server.settled(server.requests().length - 1)
    expect(request).toMatchObject({ outcome: "dropped", aborted: false, events: 3, status: 200 })
  })

  it("a stream that hangs mid-way is cancelled with exactly what arrived", async () => {
    // The events up to and including the first text delta, in each format.
    const upToFirstDelta = {
      "openai-completions": 2,
      "anthropic-messages": 4,
      "openai-responses": 5,
      "google-generative-ai": 1,
    }[api]
    server.enqueue({ blocks: [{ type: "text", text: "One two three" }], stallAfterEvents: upToFirstDelta })
    const controller = new AbortController()
    const { message } = await run(server, api, [user("Hi")], {
      signal: controller.signal,
      onEvent: (event) => event.type === "text_delta" && controller.abort(),
    })
    expect(message.stopReason).toBe("aborted")
    expect(message.content).toMatchObject([{ type: "text", text: "One" }])
    const request = await server.settled(server.requests().length - 1)
    expect(request).toMatchObject({ outcome: "client-closed", aborted: true, events: upToFirstDelta })
  })

  it("a cancelled stream closes its request, and the server stops writing", async () => {
    // A long pause between events: the cancel, not the clock, ends the exchange.
    server.enqueue({ blocks: [{ type: "text", text: "One two three four five six seven" }], delayMs: 60_000 })
    const controller = new AbortController()
    const { message } = await run(server, api, [user("Hi")], {
      signal: controller.signal,
      // pi-ai starts once the response headers are in; the first event follows them at once.
      onEvent: (event) => event.type === "start" && controller.abort(),
    })
    expect(message.stopReason).toBe("aborted")
    const request = await server.settled(server.requests().length - 1)
    expect(request).toMatchObject({ outcome: "client-closed", aborted: true, status: 200 })
    // The server was pausing after its first event when the client left, and wrote nothing more.
    expect(request.events).toBe(1)
  })
})

describe("the loopback server", () => {
  it("answers a path no format serves with 404, records it, and keeps the queue", async () => {
    const server = await Loopback.start({ replies: [{ blocks: [{ type: "text", text: "kept" }] }] })
    try {
      const response = await fetch(`${server.url}/v1/embeddings?x=1`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-test": "yes" },
        body: JSON.stringify({ input: "hi" }),
      })
      expect(response.status).toBe(404)
      expect(await response.text()).toContain("no wire format serves POST /v1/embeddings")
      expect(server.pending()).toBe(1)
      expect(server.requests()).toEqual([{
        index: 0,
        method: "POST",
        path: "/v1/embeddings",
        query: { x: "1" },
        headers: expect.objectContaining({ "content-type": "application/json", "x-test": "yes" }),
        body: { input: "hi" },
        api: undefined,
        model: undefined,
        status: 404,
        events: 0,
        outcome: "completed",
        aborted: false,
      }])
    } finally {
      await server.close()
    }
  })

  it("rejects a reply that does not decode, naming the problem", async () => {
    const server = await Loopback.start()
    try {
      expect(() => server.enqueue({ blocks: [{ type: "text", txt: "typo" } as never] })).toThrow(/reply 1 is not a valid reply/)
      expect(() =>
        server.enqueue({
          blocks: [
            { type: "tool-call", id: "c", name: "n", arguments: "{", complete: false },
            { type: "text", text: "after" },
          ],
          finish: "max-tokens",
        })
      ).toThrow(/must be the last block/)
      expect(() => server.enqueue({ status: 200 })).toThrow(/between\(400, 599\)|400/)
      expect(server.pending()).toBe(0)
    } finally {
      await server.close()
    }
  })

  it("derives the same ids on every run and different ids per request", async () => {
    const reply: Loopback.ReplyInput = { blocks: [{ type: "text", text: "Hi." }] }
    const ids = async () => {
      const server = await Loopback.start({ replies: [reply, reply] })
      try {
        const first = await run(server, "anthropic-messages", [user("Hi")])
        const second = await run(server, "anthropic-messages", [user("Hi")])
        return [first.message.responseId, second.message.responseId]
      } finally {
        await server.close()
      }
    }
    const [a, b] = [await ids(), await ids()]
    expect(a).toEqual(b)
    expect(a[0]).not.toBe(a[1])
  })

  it("closing cuts an in-flight stream at once", async () => {
    const server = await Loopback.start({ replies: [{ blocks: [{ type: "text", text: "a b c d" }], delayMs: 60_000 }] })
    const started = new Promise<void>((resolve) => {
      void run(server, "openai-completions", [user("Hi")], {
        onEvent: (event) => event.type === "start" && resolve(),
      }).then(({ message }) => expect(message.stopReason).toBe("error"))
    })
    await started
    const settled = server.settled(0)
    await server.close()
    expect(await settled).toMatchObject({ outcome: "dropped", aborted: false })
    await expect(server.waitForRequests(2)).rejects.toThrow(/closed/)
  })

  it("waits for requests to arrive", async () => {
    const server = await Loopback.start({ replies: [{ blocks: [{ type: "text", text: "Hi." }] }] })
    try {
      const arrived = server.waitForRequests(1)
      await run(server, "openai-responses", [user("Hi")])
      expect((await arrived).map((request) => request.path)).toEqual(["/v1/responses"])
    } finally {
      await server.close()
    }
  })

  it("takes more replies and shows its requests over the control endpoints", async () => {
    const server = await Loopback.start()
    try {
      const queued = await fetch(`${server.url}/__loopback/replies`, {
        method: "POST",
        body: JSON.stringify([{ blocks: [{ type: "text", text: "From control." }] }]),
      })
      expect(await queued.json()).toEqual({ pending: 1 })
      const { message } = await run(server, "google-generative-ai", [user("Hi")])
      expect(message.content).toEqual([{ type: "text", text: "From control." }])
      const listed = await (await fetch(`${server.url}/__loopback/requests`)).json() as Array<Loopback.RecordedRequest>
      expect(listed.map((request) => [request.api, request.outcome])).toEqual([["google-generative-ai", "completed"]])
      const invalid = await fetch(`${server.url}/__loopback/replies`, { method: "POST", body: '{"finish":"done"}' })
      expect(invalid.status).toBe(400)
    } finally {
      await server.close()
    }
  })

  it("as an Effect, lives exactly as long as its scope", async () => {
    const url = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const server = yield* Loopback.makeWith({ replies: [{ blocks: [{ type: "text", text: "Scoped." }] }] })
      const { message } = yield* Effect.promise(() => run(server, "anthropic-messages", [user("Hi")]))
      expect(message.content).toEqual([{ type: "text", text: "Scoped." }])
      const empty = yield* Loopback.make
      expect(empty.pending()).toBe(0)
      expect(empty.url).not.toBe(server.url)
      return server.url
    })))
    await expect(fetch(`${url}/v1/messages`, { method: "POST", body: "{}" })).rejects.toThrow()
  })
})
