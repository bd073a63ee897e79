/**
 * The loopback's Gemini 429 states its RetryInfo.retryDelay as a protobuf
 * Duration ("<seconds>s"), from the reply's retry-after header whether that is
 * seconds or an HTTP date.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Loopback } from "../src/index.js"

describe("google-generative-ai loopback: RetryInfo of a 429", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  it("retryDelay is a protobuf Duration even when retry-after is an HTTP date", async () => {
    const date = new Date(Date.now() + 30_000).toUTCString()
    server.enqueue({ status: 429, headers: { "retry-after": date } })
    const response = await fetch(`${server.baseUrl("google-generative-ai")}/models/m:streamGenerateContent?alt=sse`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    })
    expect(response.status).toBe(429)
    const body = (await response.json()) as any
    const retryInfo = body.error.details.find((d: any) => d["@type"] === "type.googleapis.com/google.rpc.RetryInfo")
    expect(retryInfo.retryDelay).toMatch(/^\d+(\.\d{1,9})?s$/)
  })
})
