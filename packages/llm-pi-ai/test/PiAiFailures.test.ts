import { describe, expect, it } from "@effect/vitest"
import { PiAiFailures } from "@turnlog/llm-pi-ai"

const { classify } = PiAiFailures

describe("PiAiFailures.classify", () => {
  it.each(
    [
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
    ] as const,
  )("HTTP %i → %s, with the status", (status, code) => {
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
    expect(classify('401: {"error":"bad key"}')).toMatchObject({ code: "AUTH", status: 401 })
    expect(classify("Request timed out.").code).toBe("TIMEOUT")
    expect(classify("Connection error.: connect ECONNREFUSED 127.0.0.1:9").code).toBe("TRANSPORT")
    expect(classify("Rate limit reached for requests").code).toBe("RATE_LIMIT")
    expect(classify("Model refused for reasons")).toStrictEqual({ code: "PROVIDER_ERROR", message: "Model refused for reasons" })
    expect(classify("").message).toBe("the provider reported an error without a message")
  })
})

describe("PiAiFailures.classify: a provider refusing replayed metadata → REPLAY_REJECTED", () => {
  const at = (message: number, content: number) => ({ _tag: "WirePosition", message, content }) as const
  it.each(
    [
      // Anthropic, as pi-ai reports its 400s (the SDK's status, then the error body).
      [
        '400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.3.content.1: Invalid `signature` in `thinking` block"}}',
        400,
        at(3, 1),
      ],
      [
        "messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
        400,
        at(1, 0),
      ],
      // OpenAI Responses: a reasoning item the server does not keep is a 404; encrypted content it cannot read a 400.
      [
        "Item with id 'rs_0a18166210d72b5e' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
        404,
        { _tag: "ItemId", id: "rs_0a18166210d72b5e" },
      ],
      [
        "The encrypted content for item rs_77ab could not be verified. Reason: Encrypted content could not be decrypted or parsed.",
        400,
        { _tag: "ItemId", id: "rs_77ab" },
      ],
      ["The encrypted content gAAA...DQ== could not be verified.", 400, undefined],
      // Gemini names no message.
      [
        "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:read_file` , position 2.",
        400,
        undefined,
      ],
      ["Corrupted thought signature.", 400, undefined],
      ["Unable to submit request because Thought signature is not valid.", 400, undefined],
    ] as const,
  )("%s", (message, status, locator) => {
    const seen: Array<PiAiFailures.ReplayLocator> = []
    const failure = classify(message, {
      response: { status, headers: {} },
      locate: (found) => {
        seen.push(found)
        return 7
      },
    })
    expect(failure).toStrictEqual({
      code: "REPLAY_REJECTED",
      message,
      status,
      ...(locator === undefined ? {} : { messageIndex: 7 }),
    })
    expect(seen).toStrictEqual(locator === undefined ? [] : [locator])
  })

  it("no index when the request cannot say which message it was; other 400s stay INVALID_REQUEST", () => {
    expect(classify("messages.2.content.0: Invalid `signature` in `thinking` block", { locate: () => undefined }))
      .toStrictEqual({ code: "REPLAY_REJECTED", message: "messages.2.content.0: Invalid `signature` in `thinking` block" })
    expect(classify("messages.2.content.0: unexpected field", { response: { status: 400, headers: {} } }).code)
      .toBe("INVALID_REQUEST")
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
