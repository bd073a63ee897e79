/**
 * What every part of a turn works with: its services, its session, its
 * settings, where its updates go and the user's cancel signal; and the two
 * things every part does with them — wait unless cancelled, and end the turn.
 *
 * Cancellation is a signal, not an interruption: each wait (the stream, a
 * retry's backoff, a permission question, a running tool) is raced against
 * it, and the turn then closes itself durably.
 */
import { Deferred, Effect, Option } from "effect"
import type { LlmAdapter } from "@turnlog/llm"
import type { Failure, SessionLog } from "@turnlog/protocol"
import type { StoreError } from "@turnlog/store"
import type { AgentUpdate } from "./AgentUpdate.js"
import type * as Permissions from "../Permissions.js"
import type * as SystemPrompt from "../SystemPrompt.js"
import type * as ToolHost from "../ToolHost.js"
import type * as Tools from "../Tools.js"
import * as Events from "./Events.js"
import type { Journal, Writer } from "./Journal.js"

export interface RetryPolicy {
  /** Retries of a transient failure that produced no content. */
  readonly maxRetries: number
  /** Backoff before retry n is `baseDelayMs · 2^(n-1)` unless the provider said when. */
  readonly baseDelayMs: number
  /** Cap on the computed backoff; a provider's `retry-after` is honoured as given. */
  readonly maxDelayMs: number
}

export interface TurnConfig {
  readonly maxSteps: number
  /** How long a provider stream may send nothing before the attempt is abandoned as a `TIMEOUT` failure. */
  readonly streamIdleTimeoutMs: number
  /** Characters an answer may stream before it is cut (`ANSWER_TOO_LARGE`). */
  readonly maxAnswerChars: number
  readonly maxTokens?: number
  readonly system?: string
  readonly retry: RetryPolicy
  /** The user's `compaction` setting, checked against each model's window (`Compaction.settingsFor`). */
  readonly compaction?: unknown
}

export interface TurnDeps {
  readonly adapter: LlmAdapter.Service
  readonly tools: Tools.Service
  readonly permissions: Permissions.Service
  readonly journal: Journal
  readonly writer: Writer
  readonly config: TurnConfig
  readonly emit: (update: AgentUpdate) => Effect.Effect<void>
  /** Completed when the user cancels the turn. */
  readonly cancel: Deferred.Deferred<void>
  /** Builds each request's system prompt; absent, `config.system` is sent as it is. */
  readonly systemPrompt?: SystemPrompt.Service
  /** Where a session's client reads, writes and runs for the tools; absent, they use the disk and child processes. */
  readonly hosts?: ToolHost.Service
}

/** `Some` with the effect's value, or `None` when the user cancelled first. */
export const unlessCancelled = <A, E>(deps: TurnDeps, effect: Effect.Effect<A, E>): Effect.Effect<Option.Option<A>, E> =>
  Effect.raceFirst(
    Effect.map(effect, Option.some),
    Effect.as(Deferred.await(deps.cancel), Option.none<A>()),
  )

export const isCancelled = (deps: TurnDeps): Effect.Effect<boolean> => Deferred.isDone(deps.cancel)

/** Writes `turn/end`, makes the log durable, then tells the reader. */
export const end = (
  deps: TurnDeps,
  reason: SessionLog.TurnEndReason,
  failure?: Failure,
): Effect.Effect<void, StoreError.StoreError> => {
  const event = Events.turnEnd(reason, failure)
  return deps.writer.log([event]).pipe(
    Effect.zipRight(deps.writer.flush),
    Effect.zipRight(deps.emit({ type: "turn-end", ...event.data })),
  )
}
