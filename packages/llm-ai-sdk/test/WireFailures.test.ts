/**
 * Provider failures over the real wire formats: each ends the stream in one
 * error finish with the code the agent loop acts on (retries, compaction), and
 * an interrupted stream closes its HTTP request.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream } from "effect"
import type { StreamChunk } from "@turnlog/protocol"
import type { Loopback } from "@turnlog/testkit"
import { type Api, APIS, harness, KEY, request, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

const failureOf = async (api: Api, reply: Loopback.ReplyInput) => {
  const h = await harness(loopback.server)
  loopback.server.enqueue(reply)
  const chunks = await h.collect(request(api, [user("u1", "Hello")]))
  const finishes = chunks.filter((c) => c.type === "finish")
  expect(finishes).toHaveLength(1)
  expect(chunks.at(-1)).toBe(finishes[0])
  const finish = finishes[0] as Extract<StreamChunk, { type: "finish" }>
  expect(finish.replayState).toBe(undefined)
  return finish.reason
}

describe.each(APIS)("%s failures over the loopback", (api) => {
  // The OpenAI and Anthropic formats name the request in a header; Gemini's does not.
  const requestId = api === "google-generative-ai" ? {} : { requestId: expect.stringMatching(/^req_/) }

  it("HTTP 401 → AUTH, with the request id and no key in the message", async () => {
    const reason = await failureOf(api, { status: 401 })
    expect(reason).toMatchObject({ kind: "error", failure: { code: "AUTH", status: 401, ...requestId } })
    expect(JSON.stringify(reason)).not.toContain(KEY)
  })

  it("HTTP 429 with retry-after → RATE_LIMIT and the delay (a transient failure the loop retries)", async () => {
    expect(await failureOf(api, { status: 429, headers: { "retry-after": "7" } })).toMatchObject({
      kind: "error",
      failure: { code: "RATE_LIMIT", status: 429, retryAfterMs: 7000 },
    })
  })

  it("HTTP 500 and 503 → SERVER", async () => {
    expect(await failureOf(api, { status: 500 })).toMatchObject({ kind: "error", failure: { code: "SERVER", status: 500 } })
    expect(await failureOf(api, { status: 503 })).toMatchObject({ kind: "error", failure: { code: "SERVER", status: 503 } })
  })

  it("a context-overflow error body → CONTEXT_WINDOW_EXCEEDED", async () => {
    expect(await failureOf(api, { status: 400, kind: "context-overflow" })).toMatchObject({
      kind: "error",
      failure: { code: "CONTEXT_WINDOW_EXCEEDED", status: 400 },
    })
  })

  it("a connection dropped mid-stream → TRANSPORT", async () => {
    expect(
      await failureOf(api, {
        blocks: [{ type: "text", text: "This answer is going to be cut off somewhere in the middle of it." }],
        dropAfterEvents: 3,
      }),
    ).toStrictEqual({
      kind: "error",
      failure: { code: "TRANSPORT", message: "Failed to process successful response: terminated: other side closed", ...requestId },
    })
  })

  it("interrupting the stream closes its HTTP request", async () => {
    const h = await harness(loopback.server)
    // The server stalls after a few events: the exchange can only end by the client going away.
    loopback.server.enqueue({
      blocks: [{ type: "text", text: "A long answer that never gets to its end, because the provider stalls." }],
      stallAfterEvents: 3,
    })
    const index = loopback.server.requests().length
    const program = Effect.gen(function*() {
      const first = yield* Deferred.make<StreamChunk>()
      const fiber = yield* h.stream(request(api, [user("u1", "Talk for a while")])).pipe(
        Stream.runForEach((chunk) => Deferred.succeed(first, chunk)),
        Effect.fork,
      )
      const chunk = yield* Deferred.await(first)
      yield* Fiber.interrupt(fiber)
      return chunk
    })
    const chunk = await Effect.runPromise(program)
    expect(chunk.type).not.toBe("finish")
    const record = await loopback.server.settled(index)
    expect(record.outcome).toBe("client-closed")
    expect(record.aborted).toBe(true)
  })
})

describe("routes", () => {
  it("an unknown route and a missing key end in one error finish before any HTTP call", async () => {
    const h = await harness(loopback.server)
    const before = loopback.server.requests().length
    expect(await h.collect({ provider: "nowhere", model: "m", messages: [user("u1", "Hi")] })).toEqual([{
      type: "finish",
      reason: { kind: "error", failure: { code: "UNKNOWN_ROUTE", message: 'no ai-sdk provider "nowhere" in the config' } },
    }])
    expect(loopback.server.requests().length).toBe(before)
  })
})
