/**
 * Gemini answers a 429 with no Retry-After header: the delay is only in the
 * body, as a google.rpc.RetryInfo `retryDelay` ("30s", "45.837906927s"). The
 * failure carries it as `retryAfterMs`, so the agent waits as long as asked.
 */
import { describe, expect, it } from "@effect/vitest"
import { request, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

const API = "google-generative-ai" as const

describe("google-generative-ai: the retry delay of a 429", () => {
  it("the loopback's default Gemini 429 (RetryInfo 30s in the body, no header) → retryAfterMs 30000", async () => {
    loopback.server.enqueue({ status: 429 })
    const chunks = await loopback.h.collect(request(API, [user("u1", "Hello")]))
    expect(chunks.at(-1)).toMatchObject({
      reason: { kind: "error", failure: { code: "RATE_LIMIT", status: 429, retryAfterMs: 30_000 } },
    })
  })

  it("a real-shaped body with a fractional retryDelay → retryAfterMs from it", async () => {
    loopback.server.enqueue({
      status: 429,
      body: {
        error: {
          code: 429,
          message: "You exceeded your current quota. Please retry in 45.837906927s.",
          status: "RESOURCE_EXHAUSTED",
          details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "45.837906927s" }],
        },
      },
    })
    const chunks = await loopback.h.collect(request(API, [user("u1", "Hello")]))
    expect(chunks.at(-1)).toMatchObject({
      reason: { kind: "error", failure: { code: "RATE_LIMIT", status: 429, retryAfterMs: 45_838 } },
    })
  })
})
