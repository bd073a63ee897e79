import { describe, expect, it } from "@effect/vitest"
import { AssistantBlock, FinishReason, Usage } from "@turnlog/protocol"
import { Schema } from "effect"
import { isAssistantBlock, isFinishReason, isIndex, isUsage } from "../src/internal/Guards.js"

// The reducer's hand-written checks stand for protocol schemas; each must
// accept exactly what its schema accepts.
const agree = (guard: (u: unknown) => boolean, schema: Schema.Schema.AnyNoContext, samples: ReadonlyArray<unknown>) => {
  for (const sample of samples) expect([sample, guard(sample)]).toStrictEqual([sample, Schema.is(schema)(sample)])
}

describe("chunk field checks agree with the protocol schemas", () => {
  it("isAssistantBlock", () => {
    agree(isAssistantBlock, AssistantBlock, [
      { type: "text", text: "" },
      { type: "reasoning", text: "why" },
      { type: "tool-call", id: "toolu_1", name: "read", arguments: "{}" },
      { type: "tool-call", id: "toolu_1", name: "read" },
      { type: "text", text: 1 },
      { type: "tool-result", toolCallId: "x", content: "y" },
      { type: "image" },
      null,
      [],
      "text",
    ])
  })

  it("isFinishReason", () => {
    agree(isFinishReason, FinishReason, [
      { kind: "stop" },
      { kind: "tool-calls" },
      { kind: "max-tokens" },
      { kind: "error", failure: { message: "m", code: "c" } },
      { kind: "aborted", failure: { message: "m", code: "c", status: 499, retryAfterMs: 10, requestId: "r" } },
      { kind: "error" },
      { kind: "error", failure: { message: "m" } },
      { kind: "error", failure: { message: "m", code: "c", status: "500" } },
      { kind: "length" },
      null,
      "stop",
    ])
  })

  it("isUsage", () => {
    agree(isUsage, Usage, [
      { inputTokens: 0, outputTokens: 0 },
      { inputTokens: 5, outputTokens: 3, cacheReadTokens: 1, cacheWriteTokens: 2, reasoningTokens: 0 },
      { inputTokens: -1, outputTokens: 0 },
      { inputTokens: 1.5, outputTokens: 0 },
      { inputTokens: 1 },
      { inputTokens: 1, outputTokens: 1, reasoningTokens: "2" },
      null,
    ])
  })

  it("isIndex", () => {
    const Index = Schema.Number.pipe(Schema.int(), Schema.nonNegative())
    agree(isIndex, Index, [0, 1, 7, 2 ** 31, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER, -1, 0.5, NaN, Infinity, "0", null])
  })
})
