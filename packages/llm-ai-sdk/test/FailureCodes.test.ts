/** Every code AI SDK failures are classified into is in the protocol's one closed set. */
import { APICallError } from "@ai-sdk/provider"
import { describe, expect, it } from "@effect/vitest"
import { isFailureCode } from "@turnlog/protocol"
import * as AiSdkFailures from "../src/AiSdkFailures.js"

const STATUSES = [undefined, 200, 400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504, 529]
const MESSAGES = [
  "",
  "something odd",
  "request timed out",
  "rate limit reached",
  "fetch failed: ECONNRESET",
  "Overloaded",
  "prompt is too long: 210000 tokens > 200000 maximum",
  "messages.1.content.0: Invalid `signature` in `thinking` block",
  "Item with id 'rs_1' not found.",
]

const aiSdk = (): ReadonlyArray<string> =>
  STATUSES.flatMap((status) =>
    MESSAGES.flatMap((message) => [
      AiSdkFailures.classify(new Error(message)).code,
      AiSdkFailures.classify(
        new APICallError({
          message,
          url: "http://127.0.0.1/v1",
          requestBodyValues: {},
          ...(status === undefined ? {} : { statusCode: status }),
          responseHeaders: {},
          responseBody: message,
        }),
      ).code,
    ])
  )

const distinct = (codes: ReadonlyArray<string>) => [...new Set(codes)].sort()

describe("failure codes", () => {
  it("every code the AI SDK adapter classifies into is in the protocol's set", () => {
    const codes = distinct(aiSdk())
    expect(codes.filter((code) => !isFailureCode(code))).toEqual([])
    expect(codes).toEqual([
      "AUTH",
      "CONTEXT_WINDOW_EXCEEDED",
      "INVALID_REQUEST",
      "PROVIDER_ERROR",
      "RATE_LIMIT",
      "REPLAY_REJECTED",
      "SERVER",
      "TIMEOUT",
      "TRANSPORT",
    ])
  })
})
