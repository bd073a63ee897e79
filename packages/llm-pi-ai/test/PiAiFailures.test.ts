import { describe, expect, it } from "@effect/vitest"
import { PiAiFailures } from "@turnlog/llm-pi-ai"

const { classify } = PiAiFailures

describe("PiAiFailures.classify", () => {
  it.each([
    [401, "AUTH"],
    [403, "AUTH"],
    [429, "RATE_LIMIT"],
    [408, "TIMEOUT"],
    [504, "TIMEOUT"],
    [413, "CONTEXT_WINDOW_EXCEEDED"],
    [500, "SERVER"],
    [503, "SERVER"],
    [400, "INVALID_REQUEST"],
    [404, "INVALID_REQUEST"],
  ] as const)("HTTP %i → %s, with the status", (status, code) => {
    expect(classify("provider said no", { response: { status, headers: {} } })).toStrictEqual({
      code,
      message: "provider said no",
      status,
    })
  })

  it("retry-after (seconds, milliseconds or a date) and the request id come from the response headers", () => {
    expect(classify("slow down", { response: { status: 429, headers: { "retry-after": "2", "x-request-id": "req_1" } } }))
      .toStrictEqual({ code: "RATE_LIMIT", message: "slow down", status: 429, retryAfterMs: 2000, requestId: "req_1" })
    expect(classify("slow down", { response: { status: 429, headers: { "retry-after-ms": "1500", "retry-after": "9" } } }))
      .toMatchObject({ retryAfterMs: 1500 })
    const now = Date.parse("2025-01-01T00:00:00Z")
    expect(
      classify("slow down", { response: { status: 429, headers: { "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" } }, now }),
    ).toMatchObject({ retryAfterMs: 30_000 })
  })

  it("an overflow message wins over its status", () => {
    expect(classify("This model's maximum context length is 8192 tokens", { response: { status: 400, headers: {} }, overflow: true }))
      .toMatchObject({ code: "CONTEXT_WINDOW_EXCEEDED", status: 400 })
  })

  it("a successful status says nothing about a failure that came later (a dropped stream)", () => {
    expect(classify("terminated", { response: { status: 200, headers: { "x-request-id": "r" } } })).toStrictEqual({
      code: "TRANSPORT",
      message: "terminated",
    })
  })

  it("without a response, the message decides", () => {
    expect(classify("429 Too many requests")).toStrictEqual({ code: "RATE_LIMIT", message: "429 Too many requests", status: 429 })
    expect(classify("401: {\"error\":\"bad key\"}")).toMatchObject({ code: "AUTH", status: 401 })
    expect(classify("Request timed out.").code).toBe("TIMEOUT")
    expect(classify("Connection error.: connect ECONNREFUSED 127.0.0.1:9").code).toBe("TRANSPORT")
    expect(classify("Rate limit reached for requests").code).toBe("RATE_LIMIT")
    expect(classify("Model refused for reasons")).toStrictEqual({ code: "PROVIDER_ERROR", message: "Model refused for reasons" })
    expect(classify("").message).toBe("the provider reported an error without a message")
  })
})

describe("PiAiFailures.observeFetch", () => {
  it("remembers the last response's status and only the headers a failure names", async () => {
    const base = async () =>
      new Response("{}", {
        status: 429,
        headers: { "retry-after": "1", "request-id": "req_7", "set-cookie": "a=b", authorization: "Bearer x" },
      })
    const observed = PiAiFailures.observeFetch(base as typeof fetch)
    expect(observed.response()).toBe(undefined)
    const response = await observed.fetch("http://127.0.0.1/")
    expect(await response.text()).toBe("{}")
    expect(observed.response()).toStrictEqual({ status: 429, headers: { "retry-after": "1", "request-id": "req_7" } })
  })
})
