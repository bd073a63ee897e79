/**
 * When a failed provider attempt is tried again, and how long the turn waits
 * first. The wait is a `Schedule` over the attempts' failures: exponential
 * from `baseDelayMs`, capped at `maxDelayMs`, replaced by the provider's own
 * `retryAfterMs` when it sent one, for at most `maxRetries` retries.
 */
import { Duration, Schedule } from "effect"
import { type Failure, isTransient } from "@turnlog/protocol"
import type { RetryPolicy } from "./TurnContext.js"

/**
 * Whether a failed attempt may be tried again: the failure is transient and
 * the user saw nothing of the attempt (a retry would show it twice).
 */
export const isRetryable = (failure: Failure, sawContent: boolean): boolean => isTransient(failure.code) && !sawContent

/** One retry about to happen: the number of the attempt it runs, after how long, because of what. */
export interface Retry {
  readonly attempt: number
  readonly delayMs: number
  readonly failure: Failure
}

/** Fed each retryable failure in turn; continues with the `Retry` it waits for, or is done. */
export const schedule = (policy: RetryPolicy): Schedule.Schedule<Retry, Failure> => {
  const backoff = Schedule.exponential(Duration.millis(policy.baseDelayMs)).pipe(
    Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.millis(policy.maxDelayMs))),
    Schedule.intersect(Schedule.identity<Failure>()),
    // The provider knows best when it will take the request again.
    Schedule.modifyDelay(([, failure], delay) => failure.retryAfterMs === undefined ? delay : Duration.millis(failure.retryAfterMs)),
  )
  return Schedule.delays(backoff).pipe(
    Schedule.intersect(Schedule.identity<Failure>()),
    Schedule.intersect(Schedule.recurs(policy.maxRetries)),
    // `recurs` counts retries from 0; the first retry is the turn's second attempt.
    Schedule.map(([[delay, failure], retried]): Retry => ({
      attempt: retried + 2,
      delayMs: Duration.toMillis(delay),
      failure,
    })),
  )
}
