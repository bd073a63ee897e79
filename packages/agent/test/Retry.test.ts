// Provider failures: transient ones are retried with backoff while the failed
// attempt produced nothing, everything else ends the turn with the failure.
// The failed attempts stay in the log as evidence. Every wait here is on the
// TestClock: a test moves time on, it never waits for it.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import * as C from "./support/chunks.js"
import { chunksOf, onTestClock, outline, setup, wakeAt } from "./support/harness.js"

const SERVER_500 = { code: "SERVER" as const, message: "500 Internal Server Error", status: 500 }
const AUTH_401 = { code: "AUTH" as const, message: "401 invalid x-api-key", status: 401 }
/** The log of a turn whose first attempt failed and whose second answered. */
const RETRIED_ONCE = [
  "turn/start",
  "user/message",
  "request/start",
  "assistant/chunk*",
  "request/start",
  "assistant/chunk*",
  "assistant/message",
  "turn/end",
]

describe("retry", () => {
  it.scoped("a 500 then success: retried once, both attempts logged, the turn completes", () =>
    Effect.gen(function*() {
      const h = yield* setup([[C.failed(SERVER_500.code, SERVER_500.message, { status: 500 })], C.reply("Hello.")], {
        config: { retry: { baseDelayMs: 5 } },
      })
      const turn = yield* Effect.fork(h.prompt("hi"))
      // The second attempt starts when the announced 5 ms are over.
      yield* wakeAt(5)
      const updates = yield* Fiber.join(turn)
      expect(updates).toEqual([
        { type: "turn-start" },
        { type: "retry", attempt: 2, delayMs: 5, failure: SERVER_500 },
        { type: "text-delta", text: "Hello." },
        { type: "turn-end", reason: "completed" },
      ])
      const events = yield* h.events()
      expect(outline(events)).toEqual(RETRIED_ONCE)
      expect(events.filter((e) => e.type === "request/start").map((e) => e.data)).toEqual([
        { provider: "scripted", model: "test-model", step: 1, attempt: 1 },
        { provider: "scripted", model: "test-model", step: 1, attempt: 2 },
      ])
      expect(chunksOf(events)[0]).toEqual({ type: "finish", reason: { kind: "error", failure: SERVER_500 } })
      const requests = yield* h.requests
      expect(requests).toHaveLength(2)
      // The retry sends the same history: the failed attempt left no message.
      expect(requests[1]!.messages).toEqual(requests[0]!.messages)
    }))

  it.scoped("a 401 is not retried: turn/end {error} with the failure", () =>
    Effect.gen(function*() {
      const h = yield* setup([[C.failed(AUTH_401.code, AUTH_401.message, { status: 401 })], C.reply("never")])
      const updates = yield* h.prompt("hi").pipe(onTestClock(1))
      expect(updates).toEqual([{ type: "turn-start" }, { type: "turn-end", reason: "error", failure: AUTH_401 }])
      expect(yield* h.requests).toHaveLength(1)
      const events = yield* h.events()
      expect(events.at(-1)!.data).toEqual({ reason: "error", failure: AUTH_401 })
      expect(events.some((e) => e.type === "assistant/message")).toBe(false)
      // The failed attempt's chunks go in with the turn's end, before the flush.
      expect(h.ops.slice(-2)).toEqual(["append assistant/chunks,turn/end", "flush"])
    }))

  it.scoped("the provider's retry-after is honoured, and backoff doubles", () =>
    Effect.gen(function*() {
      const h = yield* setup([
        [C.failed("RATE_LIMIT", "429", { status: 429, retryAfterMs: 7 })],
        [C.failed("TRANSPORT", "socket hang up")],
        [C.failed("TIMEOUT", "timed out")],
        C.reply("ok"),
      ], { config: { retry: { baseDelayMs: 2 } } })
      const turn = yield* Effect.fork(h.prompt("hi"))
      // Each attempt starts when its wait is over: 7, then 4 and 8 more.
      for (const instant of [7, 11, 19]) yield* wakeAt(instant)
      const updates = yield* Fiber.join(turn)
      expect(yield* TestClock.currentTimeMillis).toBe(19)
      expect(updates.filter((u) => u.type === "retry").map((u) => [u.attempt, u.delayMs])).toEqual([
        [2, 7],
        [3, 4],
        [4, 8],
      ])
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
    }))

  it.scoped("after three retries the failure ends the turn", () =>
    Effect.gen(function*() {
      const fail = [C.failed("SERVER", "503", { status: 503 })]
      const h = yield* setup([fail, fail, fail, fail, C.reply("too late")])
      const updates = yield* h.prompt("hi").pipe(onTestClock(1))
      expect(updates.filter((u) => u.type === "retry")).toHaveLength(3)
      expect(updates.at(-1)).toEqual({
        type: "turn-end",
        reason: "error",
        failure: { code: "SERVER", message: "503", status: 503 },
      })
      expect(yield* h.requests).toHaveLength(4)
    }))

  it.scoped("a transient failure after content was streamed is not retried", () =>
    Effect.gen(function*() {
      const h = yield* setup([
        [{ type: "text-delta", index: 0, text: "Half an ans" }, C.failed("TRANSPORT", "connection reset")],
        C.reply("never"),
      ])
      const updates = yield* h.prompt("hi").pipe(onTestClock(1))
      expect(updates).toEqual([
        { type: "turn-start" },
        { type: "text-delta", text: "Half an ans" },
        { type: "turn-end", reason: "error", failure: { code: "TRANSPORT", message: "connection reset" } },
      ])
      expect(yield* h.requests).toHaveLength(1)
    }))

  it.scoped("a session whose turn failed takes the next prompt", () =>
    Effect.gen(function*() {
      const h = yield* setup([[C.failed("AUTH", "bad key")], C.reply("fixed")])
      yield* h.prompt("one").pipe(onTestClock(1))
      const updates = yield* h.prompt("two").pipe(onTestClock(1))
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const requests = yield* h.requests
      expect(requests[1]!.messages.map((m) => m.content)).toEqual([
        [{ type: "text", text: "one" }],
        [{ type: "text", text: "two" }],
      ])
    }))

  it.scoped("a stream that goes quiet is abandoned as a TIMEOUT, logged, and retried", () =>
    Effect.gen(function*() {
      const quiet = { code: "TIMEOUT", message: "scripted sent nothing for 0.5 s; the request was abandoned" }
      // The first call never sends a chunk; the second answers.
      const h = yield* setup([{ chunks: [], stall: true }, C.reply("Hello.")], { config: { streamIdleTimeoutMs: 500 } })
      const turn = yield* Effect.fork(h.prompt("hi"))
      // Abandoned after 500 ms of nothing; asked again 1 ms (the backoff) later.
      yield* wakeAt(500)
      yield* wakeAt(501)
      const updates = yield* Fiber.join(turn)
      expect(updates).toEqual([
        { type: "turn-start" },
        { type: "retry", attempt: 2, delayMs: 1, failure: quiet },
        { type: "text-delta", text: "Hello." },
        { type: "turn-end", reason: "completed" },
      ])
      const events = yield* h.events()
      expect(outline(events)).toEqual(RETRIED_ONCE)
      // The abandoned attempt's evidence: the failure it ended with, as its only chunk.
      expect(chunksOf(events)[0]).toEqual({ type: "finish", reason: { kind: "error", failure: quiet } })
    }))

  it.scoped("a stream that goes quiet after showing text ends the turn with the TIMEOUT, not a retry", () =>
    Effect.gen(function*() {
      const quiet = { code: "TIMEOUT", message: "scripted sent nothing for 0.5 s; the request was abandoned" }
      const h = yield* setup([{ chunks: [{ type: "text-delta", index: 0, text: "Half an ans" }], stall: true }, C.reply("never")], {
        config: { streamIdleTimeoutMs: 500 },
      })
      const turn = yield* Effect.fork(h.prompt("hi"))
      yield* wakeAt(500)
      const updates = yield* Fiber.join(turn)
      expect(updates).toEqual([
        { type: "turn-start" },
        { type: "text-delta", text: "Half an ans" },
        { type: "turn-end", reason: "error", failure: quiet },
      ])
      expect(yield* h.requests).toHaveLength(1)
    }))
})
