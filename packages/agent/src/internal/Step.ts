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
import { Chunk, Effect, Either, Option, Schedule } from "effect"
import { Assembler } from "@turnlog/assembler"
import { Compaction } from "@turnlog/history"
import type { LlmAdapter } from "@turnlog/llm"
import { type Failure, type FinishReason, hasCode, type MessageId, SessionLog, type ToolCallBlock } from "@turnlog/protocol"
import type { StoreError } from "@turnlog/store"
import * as PlanExit from "../PlanExit.js"
import * as SystemPrompt from "../SystemPrompt.js"
import * as AnswerLimit from "./AnswerLimit.js"
import * as AnswerRoom from "./AnswerRoom.js"
import * as Attempt from "./Attempt.js"
import * as Compact from "./Compact.js"
import * as Events from "./Events.js"
import * as Journal from "./Journal.js"
import * as Request from "./Request.js"
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
const end = (deps: Deps, reason: SessionLog.TurnEndReason, failure?: Failure) => Effect.as(TurnContext.end(deps, reason, failure), ENDED)

/** Whether the adapter would grant `request` less answer than it should get (`AnswerRoom`). */
const isShort = (deps: Deps, b: Compact.Budget, request: LlmAdapter.LlmRequest) =>
  Effect.gen(function*() {
    const target = yield* AnswerRoom.target(deps, b)
    if (target === undefined) return false
    const room = yield* AnswerRoom.of(deps, request)
    return room !== undefined && room < target.answer
  })

/** A request ready to send, and what the log records of its system prompt. */
interface Prepared {
  readonly request: LlmAdapter.LlmRequest
  readonly system?: SessionLog.SystemRecord
}

/**
 * Before each provider request: the system prompt is built (`SystemPrompt`),
 * the request is estimated against the model's context window and, when it
 * would not leave the answer its reserve, when the adapter would grant its
 * answer less than it should get, or when the provider refused it as too
 * large (`force`), the history is compacted first (`Compact`). The request is
 * then made from the log as it is now. A failed compaction is the failure the
 * turn ends with.
 */
const prepare = (
  given: Deps,
  step: number,
  force: boolean,
): Effect.Effect<Either.Either<Prepared, Failure>, StoreError.StoreError> =>
  Effect.gen(function*() {
    const mode = SessionLog.modeOf(yield* Journal.history(given.journal))
    const tools = PlanExit.offered(given.tools, mode)
    const built = given.systemPrompt === undefined
      ? undefined
      : yield* given.systemPrompt.build({ cwd: given.journal.cwd, tools: tools.specs })
    const prompt = SystemPrompt.forMode(built, mode)
    // This request's prompt is the one its budget counts and it sends.
    const offered = { ...given, tools }
    const deps = prompt === undefined ? offered : { ...offered, config: { ...given.config, system: prompt.text } }
    const budget = Compact.budget(deps)
    if (Either.isLeft(budget)) return Either.left(budget.left)
    const b = budget.right
    const ready = (sent: LlmAdapter.LlmRequest): Prepared => prompt === undefined ? { request: sent } : { request: sent, system: SystemPrompt.record(prompt) }
    const now = Request.of(deps, yield* Journal.history(deps.journal), b?.limitChars)
    if (b === undefined || !b.settings.enabled) return Either.right(ready(now))
    const events = Chunk.toReadonlyArray(yield* Journal.history(deps.journal))
    const due = force ||
      Compaction.decide(Compact.estimate(events, b).tokens, b.info.contextWindow, b.settings).compact ||
      (yield* isShort(deps, b, now))
    if (!due) return Either.right(ready(now))
    const compacted = yield* Compact.run(deps, b, step)
    if (Either.isLeft(compacted)) return Either.left(compacted.left)
    return Either.right(ready(Request.of(deps, yield* Journal.history(deps.journal), b.limitChars)))
  })

/**
 * The messages whose replay state a provider refused: the one its error
 * names, else every message of the request that carried replay state.
 */
const refusedMessages = (request: LlmAdapter.LlmRequest, failure: Failure): ReadonlyArray<MessageId> => {
  const named = failure.messageIndex === undefined ? undefined : request.messages[failure.messageIndex]
  if (named !== undefined && named.source.kind === "model" && named.source.replayState !== undefined) return [named.id]
  return request.messages.flatMap((m) => m.source.kind === "model" && m.source.replayState !== undefined ? [m.id] : [])
}

/** Keeps the text and reasoning the user saw before the cancel, then closes the turn. */
const endInterrupted = (deps: Deps, state: Assembler.State) =>
  Effect.gen(function*() {
    const blocks = Assembler.interrupted(state)
    if (blocks.length > 0) yield* deps.writer.log([Events.interruptedMessage(deps.journal.route, blocks)])
    return yield* end(deps, "cancelled")
  })

/**
 * Keeps the text and reasoning of an answer cut at the size limit (its own
 * bound), then ends the turn with the failure saying so. Never retried: the
 * same request would stream the same answer.
 */
const endTooLarge = (deps: Deps, state: Assembler.State, finish: FinishReason) =>
  Effect.gen(function*() {
    const blocks = Assembler.interrupted(state)
    if (blocks.length > 0) yield* deps.writer.log([Events.interruptedMessage(deps.journal.route, blocks, finish)])
    return yield* end(deps, "error", finish.kind === "error" ? finish.failure : undefined)
  })

/**
 * What a failed attempt leads to: another attempt (after the retry schedule's
 * wait, unless the user cancels during it), a recovery (`compact`: the next
 * attempt compacts first; `repaired`: the refused replay state is set aside by
 * a flushed `replay/degrade`), or the end of the turn with the failure. A
 * recovery is tried once a step and only when nothing was shown; a failure
 * after it says the recovery did not help. The failed
 * attempt's chunks stay logged; no message is made of them.
 */
const afterFailure = (
  deps: Deps,
  retries: Retries,
  failure: Failure,
  result: Assembler.Assembled,
  streamed: Attempt.Streamed,
  sent: LlmAdapter.LlmRequest,
  recovered: Recovery | undefined,
  attemptNumber: number,
): Effect.Effect<"retry" | "compact" | "repaired" | Outcome, StoreError.StoreError> =>
  Effect.gen(function*() {
    if (Retry.isRetryable(failure, streamed.sawContent)) {
      const waited = yield* TurnContext.unlessCancelled(deps, Effect.option(retries.next(failure)))
      if (Option.isNone(waited)) return yield* end(deps, "cancelled")
      if (Option.isSome(waited.value)) return "retry" as const
      // The retries are spent: the failure ends the turn.
    }
    if (recovered === undefined && !streamed.sawContent && !(yield* TurnContext.isCancelled(deps))) {
      const retry = deps.emit({ type: "retry", attempt: attemptNumber + 1, delayMs: 0, failure })
      const budget = Compact.budget(deps)
      const compacts = Either.isRight(budget) && budget.right !== undefined && budget.right.settings.enabled
      if (hasCode(failure, "CONTEXT_WINDOW_EXCEEDED") && compacts) {
        yield* retry
        return "compact" as const
      }
      if (hasCode(failure, "REPLAY_REJECTED")) {
        const messageIds = refusedMessages(sent, failure)
        if (messageIds.length > 0) {
          const { provider, model } = deps.journal.route
          yield* deps.writer.log([Events.replayDegrade({ messageIds, reason: failure.message, provider, model })])
          yield* deps.writer.flush
          yield* retry
          return "repaired" as const
        }
      }
    }
    if (result.usage !== undefined) yield* deps.emit({ type: "usage", usage: result.usage })
    return yield* end(deps, "error", afterRecovery(failure, recovered))
  })

/** The recovery a step made: at most one, so a refusal never loops. */
type Recovery = "compact" | "repaired"

/** A failure that came back after the recovery meant for it, saying so. */
const afterRecovery = (failure: Failure, recovered: Recovery | undefined): Failure => {
  if (recovered === "repaired" && hasCode(failure, "REPLAY_REJECTED")) {
    return { ...failure, message: `${failure.message} (refused again after the refused replay state was set aside)` }
  }
  if (recovered === "compact" && hasCode(failure, "CONTEXT_WINDOW_EXCEEDED")) {
    return { ...failure, message: `${failure.message} (still too large after compacting)` }
  }
  return failure
}

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

/**
 * Step `step`, from its attempt `attempt` on. `recovered`: how this step
 * already recovered from a refusal (once a step, never a loop); `force`:
 * compact before this attempt's request.
 */
const attempt = (
  deps: Deps,
  retries: Retries,
  step: number,
  attemptNumber: number,
  recovered: Recovery | undefined,
  force: boolean,
): Effect.Effect<Outcome, StoreError.StoreError> =>
  Effect.gen(function*() {
    if (yield* TurnContext.isCancelled(deps)) return yield* end(deps, "cancelled")
    const prepared = yield* prepare(deps, step, force)
    if (Either.isLeft(prepared)) {
      if (yield* TurnContext.isCancelled(deps)) return yield* end(deps, "cancelled")
      return yield* end(deps, "error", prepared.left)
    }
    const { request: sent, system } = prepared.right
    yield* deps.writer.log([Events.requestStart(deps.journal.route, step, attemptNumber, system)])
    yield* deps.writer.flush

    const streamed = yield* Attempt.run(deps, sent)
    if (!streamed.sawFinish && (yield* TurnContext.isCancelled(deps))) return yield* endInterrupted(deps, streamed.state)

    const result = Assembler.finish(streamed.state)
    const finish = result.finish
    if (finish.kind === "error" && hasCode(finish.failure, AnswerLimit.ANSWER_TOO_LARGE)) {
      return yield* endTooLarge(deps, streamed.state, finish)
    }
    if (finish.kind === "error" || finish.kind === "aborted") {
      const next = yield* afterFailure(deps, retries, finish.failure, result, streamed, sent, recovered, attemptNumber)
      switch (next) {
        case "retry":
          return yield* attempt(deps, retries, step, attemptNumber + 1, recovered, false)
        case "compact":
          return yield* attempt(deps, retries, step, attemptNumber + 1, "compact", true)
        case "repaired":
          return yield* attempt(deps, retries, step, attemptNumber + 1, "repaired", false)
        default:
          return next
      }
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
    return yield* attempt(deps, retries, step, 1, undefined, false)
  })
