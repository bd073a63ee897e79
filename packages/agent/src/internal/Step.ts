/**
 * One step of a turn: a provider request, attempted until it answers, fails
 * for good, or the user cancels; then what its answer decides — the turn ends,
 * or the model asked for tools.
 *
 * The recoveries a step can grow have their places here:
 * - before each provider request (`prepare`): e.g. estimate the request
 *   against the model's context window and write `context/compaction` first;
 * - after a failed attempt (`afterFailure`): a failure code with a recovery
 *   (e.g. `REPLAY_REJECTED` → `replay/degrade`, `CONTEXT_WINDOW_EXCEEDED` →
 *   compaction) writes its event and answers `retry` once.
 */
import { Chunk, Effect, Option, Schedule } from "effect"
import { Assembler } from "@turnlog/assembler"
import { History } from "@turnlog/history"
import type { LlmAdapter } from "@turnlog/llm"
import type { Failure, SessionLog, ToolCallBlock } from "@turnlog/protocol"
import type { StoreError } from "@turnlog/store"
import * as Attempt from "./Attempt.js"
import * as Events from "./Events.js"
import * as Journal from "./Journal.js"
import * as Retry from "./Retry.js"
import * as TurnContext from "./TurnContext.js"

/** How a step ended: the turn ended inside it, or the model asked for tools. */
export type Outcome =
  | { readonly _tag: "ended" }
  | { readonly _tag: "tools"; readonly calls: ReadonlyArray<ToolCallBlock> }

const ENDED: Outcome = { _tag: "ended" }

type Deps = TurnContext.TurnDeps
type Retries = Schedule.ScheduleDriver<Retry.Retry, Failure>

/** Ends the turn; the step has nothing more to do. */
const end = (deps: Deps, reason: SessionLog.TurnEndReason, failure?: Failure) =>
  Effect.as(TurnContext.end(deps, reason, failure), ENDED)

/** The request as the log stands now: the whole history, the session's tools and settings. */
const request = (deps: Deps, history: Chunk.Chunk<SessionLog.SessionEvent>): LlmAdapter.LlmRequest => {
  const { config, journal } = deps
  return {
    provider: journal.route.provider,
    model: journal.route.model,
    messages: History.fromEvents(Chunk.toReadonlyArray(history)),
    sessionId: journal.id,
    ...(config.system !== undefined ? { system: config.system } : {}),
    ...(deps.tools.specs.length > 0 ? { tools: deps.tools.specs } : {}),
    ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
  }
}

/**
 * Before each provider request: the request is made from the log as it is
 * now. A check that writes first (compaction when the estimate exceeds the
 * context window) goes here, before the history is read.
 */
const prepare = (deps: Deps): Effect.Effect<LlmAdapter.LlmRequest, StoreError.StoreError> =>
  Effect.map(Journal.history(deps.journal), (history) => request(deps, history))

/** Keeps the text and reasoning the user saw before the cancel, then closes the turn. */
const endInterrupted = (deps: Deps, state: Assembler.State) =>
  Effect.gen(function*() {
    const blocks = Assembler.interrupted(state)
    if (blocks.length > 0) yield* deps.writer.log([Events.interruptedMessage(deps.journal.route, blocks)])
    return yield* end(deps, "cancelled")
  })

/**
 * What a failed attempt leads to: another attempt (after the retry schedule's
 * wait, unless the user cancels during it), or the end of the turn with the
 * failure. The failed attempt's chunks stay logged; no message is made of them.
 */
const afterFailure = (
  deps: Deps,
  retries: Retries,
  failure: Failure,
  result: Assembler.Assembled,
  streamed: Attempt.Streamed,
): Effect.Effect<"retry" | Outcome, StoreError.StoreError> =>
  Effect.gen(function*() {
    if (Retry.isRetryable(failure, streamed.sawContent)) {
      const waited = yield* TurnContext.unlessCancelled(deps, Effect.option(retries.next(failure)))
      if (Option.isNone(waited)) return yield* end(deps, "cancelled")
      if (Option.isSome(waited.value)) return "retry" as const
      // The retries are spent: the failure ends the turn.
    }
    // A failure code with a recovery goes here: it writes its event and answers "retry", once a step.
    if (result.usage !== undefined) yield* deps.emit({ type: "usage", usage: result.usage })
    return yield* end(deps, "error", failure)
  })

/** Logs the answer and reads what it asks for. */
const conclude = (deps: Deps, result: Assembler.Assembled): Effect.Effect<Outcome, StoreError.StoreError> =>
  Effect.gen(function*() {
    yield* deps.writer.log([Events.assistantMessage(deps.journal.route, result)])
    if (result.usage !== undefined) yield* deps.emit({ type: "usage", usage: result.usage })
    // The assembler already dropped tool calls from a max-tokens response; never run one anyway.
    if (result.finish.kind === "max-tokens") return yield* end(deps, "max-tokens")
    const calls = result.blocks.filter((b): b is ToolCallBlock => b.type === "tool-call")
    if (calls.length > 0) return { _tag: "tools", calls } as const
    return yield* end(deps, "completed")
  })

/** Step `step`, from its attempt `attempt` on. */
const attempt = (
  deps: Deps,
  retries: Retries,
  step: number,
  attemptNumber: number,
): Effect.Effect<Outcome, StoreError.StoreError> =>
  Effect.gen(function*() {
    if (yield* TurnContext.isCancelled(deps)) return yield* end(deps, "cancelled")
    const prepared = yield* prepare(deps)
    yield* deps.writer.log([Events.requestStart(deps.journal.route, step, attemptNumber)])
    yield* deps.writer.flush

    const streamed = yield* Attempt.run(deps, prepared)
    if (!streamed.sawFinish && (yield* TurnContext.isCancelled(deps))) return yield* endInterrupted(deps, streamed.state)

    const result = Assembler.finish(streamed.state)
    const finish = result.finish
    if (finish.kind === "error" || finish.kind === "aborted") {
      const next = yield* afterFailure(deps, retries, finish.failure, result, streamed)
      return next === "retry" ? yield* attempt(deps, retries, step, attemptNumber + 1) : next
    }
    return yield* conclude(deps, result)
  })

/** One provider request and what it decided, retrying transient failures. */
export const run = (deps: Deps, step: number): Effect.Effect<Outcome, StoreError.StoreError> =>
  Effect.gen(function*() {
    const schedule = Retry.schedule(deps.config.retry).pipe(
      // Said before the wait, so the reader knows why nothing happens for a while.
      Schedule.onDecision((retry, decision) =>
        decision._tag === "Continue"
          ? deps.emit({ type: "retry", attempt: retry.attempt, delayMs: retry.delayMs, failure: retry.failure })
          : Effect.void
      ),
    )
    const retries = yield* Schedule.driver(schedule)
    return yield* attempt(deps, retries, step, 1)
  })
