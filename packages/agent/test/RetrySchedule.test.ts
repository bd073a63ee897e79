// The wait before each retry, on its own: the schedule fed failures one by
// one, time moved on the TestClock past each wait it asks for.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, Schedule, Schema, TestClock } from "effect"
import { DurableFailureCode, type Failure, FailureCode, isTransient } from "@turnlog/protocol"
import * as Retry from "../src/internal/Retry.js"

const SERVER: Failure = { code: "SERVER", message: "503", status: 503 }
const LIMITED = (retryAfterMs: number): Failure => ({ code: "RATE_LIMIT", message: "429", status: 429, retryAfterMs })

/** What the schedule answers to each failure in turn: the retry and when it starts, or `"spent"`. */
const answers = (policy: Parameters<typeof Retry.schedule>[0], failures: ReadonlyArray<Failure>) =>
  Effect.gen(function*() {
    const driver = yield* Schedule.driver(Retry.schedule(policy))
    const out: Array<string> = []
    for (const failure of failures) {
      const next = yield* Effect.fork(Effect.option(driver.next(failure)))
      yield* TestClock.adjust(60_000)
      const retry = yield* Fiber.join(next)
      out.push(
        Option.match(retry, {
          onNone: () => "spent",
          onSome: (r) => `attempt ${r.attempt} after ${r.delayMs} ms (${r.failure.code})`,
        }),
      )
    }
    return out
  })

describe("the retry schedule", () => {
  it.effect("doubles from the base up to the cap, honours retry-after as given, and is spent after maxRetries", () =>
    Effect.gen(function*() {
      expect(
        yield* answers({ maxRetries: 5, baseDelayMs: 1000, maxDelayMs: 3000 }, [
          SERVER,
          SERVER,
          LIMITED(45_000),
          SERVER,
          LIMITED(0),
          SERVER,
        ]),
      ).toEqual([
        "attempt 2 after 1000 ms (SERVER)",
        "attempt 3 after 2000 ms (SERVER)",
        // Above the cap: the provider said when, and it knows best.
        "attempt 4 after 45000 ms (RATE_LIMIT)",
        "attempt 5 after 3000 ms (SERVER)",
        "attempt 6 after 0 ms (RATE_LIMIT)",
        "spent",
      ])
    }))

  it.effect("with no retries allowed the first failure is final", () =>
    Effect.gen(function*() {
      expect(yield* answers({ maxRetries: 0, baseDelayMs: 1000, maxDelayMs: 3000 }, [SERVER])).toEqual(["spent"])
    }))

  it("a failed attempt is retried exactly when its code is transient and it showed nothing", () => {
    for (const code of FailureCode.literals) {
      expect([code, Retry.isRetryable({ code, message: "" }, false)]).toEqual([code, isTransient(code)])
      expect(Retry.isRetryable({ code, message: "" }, true)).toBe(false)
    }
  })

  it("retries only transient failures that showed nothing", () => {
    expect(
      ["RATE_LIMIT", "SERVER", "TRANSPORT", "TIMEOUT", "AUTH", "BAD_REQUEST", "CANCELLED"].map((code) =>
        Retry.isRetryable({ code: Schema.decodeSync(DurableFailureCode)(code), message: "" }, false)
      ),
    ).toEqual([true, true, true, true, false, false, false])
    expect(Retry.isRetryable(SERVER, true)).toBe(false)
  })
})
