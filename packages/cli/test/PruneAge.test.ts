// The age `turnlog prune --older-than` takes: a whole number and a unit.
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { parseAge } from "../src/commands/Delete.js"

describe("prune --older-than", () => {
  it("reads minutes, hours, days and weeks", () => {
    expect([parseAge("90m"), parseAge("12h"), parseAge("30d"), parseAge("2w")].map(Either.getOrThrow)).toStrictEqual([
      90 * 60_000,
      12 * 3_600_000,
      30 * 86_400_000,
      2 * 604_800_000,
    ])
  })

  it("is required: without it, one sentence saying so", () => {
    const missing = parseAge(undefined)
    expect(Either.isLeft(missing) && missing.left.message).toBe("prune needs --older-than <age> (for example 30d)")
  })

  it("refuses anything else in one sentence naming it", () => {
    for (const text of ["30", "d", "0d", "1.5d", "-3d", "30 days", "3y"]) {
      const refused = parseAge(text)
      expect(Either.isLeft(refused) && refused.left.message).toBe(
        `--older-than ${JSON.stringify(text)} is not an age: give a whole number and a unit, m, h, d or w (for example 30d)`,
      )
    }
  })
})
