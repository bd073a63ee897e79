// An answer is priced at its model's rates per million tokens, at a tier's
// rates when its request's input (cached included) is above the tier's threshold.
import { describe, expect, it } from "vitest"
import { priceOf } from "../src/internal/ContextUsage.js"

const prices = {
  input: 3,
  output: 15,
  cacheRead: 0.3,
  cacheWrite: 3.75,
  tiers: [{ input: 6, output: 22.5, cacheRead: 0.6, cacheWrite: 7.5, inputTokensAbove: 200_000 }],
}

describe("priceOf", () => {
  it("base rates up to the tier's threshold, the tier's above it", () => {
    expect(priceOf({ inputTokens: 100_000, outputTokens: 1_000, cacheReadTokens: 100_000 }, prices)).toBeCloseTo(0.3 + 0.015 + 0.03, 10)
    expect(priceOf({ inputTokens: 100_000, outputTokens: 1_000, cacheReadTokens: 100_001 }, prices)).toBeCloseTo(0.6 + 0.0225 + 0.0600006, 10)
  })
})
