// A PostgreSQL write's wait for an answer grows with the data it sends: the
// configured timeout plus a second per MiB, so a large import on a busy
// machine is not taken for a dead server.
import { describe, expect, it } from "@effect/vitest"
import { Duration } from "effect"
import { timeoutFor } from "../src/internal/PgLease.js"

describe("timeoutFor", () => {
  it("is the configured timeout for a small write and grows by a second per MiB", () => {
    const thirty = Duration.seconds(30)
    expect(Duration.toMillis(timeoutFor(thirty, 0))).toBe(30_000)
    expect(Duration.toMillis(timeoutFor(thirty, 2_000))).toBe(30_002)
    expect(Duration.toMillis(timeoutFor(thirty, 1_048_576))).toBe(31_000)
    // The 150 MiB event of the import test: 30 s + 150 s.
    expect(Duration.toMillis(timeoutFor(thirty, 150 * 1_048_576))).toBe(180_000)
    expect(Duration.toMillis(timeoutFor(Duration.seconds(1), 300))).toBe(1_001)
  })
})
