/** Every code pi-ai failures are classified into is in the protocol's one closed set. */
import { describe, expect, it } from "@effect/vitest"
import { isFailureCode } from "@turnlog/protocol"
import * as PiAiFailures from "../src/PiAiFailures.js"

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

const piAi = (): ReadonlyArray<string> =>
  STATUSES.flatMap((status) =>
    MESSAGES.flatMap((message) =>
      [false, true].map((overflow) =>
        PiAiFailures.classify(
          status === undefined ? message : `${status} ${message}`,
          { overflow, ...(status === undefined ? {} : { response: { status, headers: {} } }) },
        ).code
      )
    )
  )

const distinct = (codes: ReadonlyArray<string>) => [...new Set(codes)].sort()

describe("failure codes", () => {
  it("every code the pi-ai adapter classifies into is in the protocol's set", () => {
    const codes = distinct(piAi())
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
