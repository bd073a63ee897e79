/**
 * Context compaction in the loop. Before each provider request the request is
 * estimated against the model's context window (the adapter's `modelInfo`);
 * when `Compaction.decide` says so, the history before a cut point is
 * summarised by the session's own model through the same adapter (a request
 * marked `purpose: "compaction"`, its chunks logged like any other request's,
 * shown to nobody) and `context/compaction` is written and flushed before the
 * request it makes room for. A summary request that fails transiently (a
 * reset connection, an overloaded provider) is tried again under the turn's
 * retry policy, each attempt logged. Nothing is deleted: a failed summary leaves the
 * conversation as it was (its request is not conversation), and the turn ends
 * with a failure saying why.
 */
import { Chunk, Effect, Either, Option, Schedule } from "effect"
import { Assembler } from "@turnlog/assembler"
import { Compaction } from "@turnlog/history"
import type { LlmAdapter } from "@turnlog/llm"
import { type Failure, isTransient, type SessionLog } from "@turnlog/protocol"
import type { StoreError } from "@turnlog/store"
import * as AnswerRoom from "./AnswerRoom.js"
import * as Attempt from "./Attempt.js"
import * as Events from "./Events.js"
import * as Journal from "./Journal.js"
import * as Retry from "./Retry.js"
import * as TurnContext from "./TurnContext.js"
import type { TurnDeps } from "./TurnContext.js"

/** What a request is held to: the model's window, the settings for it, what every request carries besides messages. */
export interface Budget {
  readonly info: LlmAdapter.ModelInfo
  readonly settings: Compaction.Settings
  /** Tool results are sent cut to this many characters. */
  readonly limitChars: number
  /** The system prompt and tool definitions, in tokens. */
  readonly fixedTokens: number
}

export const COMPACTION_FAILED = "COMPACTION_FAILED"
export const INVALID_SETTINGS = "INVALID_SETTINGS"

/** The budget of the session's model; undefined when the adapter knows nothing of it (then nothing is compacted). */
export const budget = (deps: TurnDeps): Either.Either<Budget | undefined, Failure> => {
  const { provider, model } = deps.journal.route
  const info = deps.adapter.modelInfo?.(provider, model)
  if (info === undefined) return Either.right(undefined)
  return Compaction.settingsFor(deps.config.compaction, info.contextWindow).pipe(
    Either.map((settings): Budget => ({
      info,
      settings,
      limitChars: Compaction.toolResultLimitChars(info.contextWindow, settings),
      fixedTokens: Compaction.tokensOfChars(
        (deps.config.system?.length ?? 0) + (deps.tools.specs.length > 0 ? JSON.stringify(deps.tools.specs).length : 0),
      ),
    })),
    Either.mapLeft((invalid): Failure => ({ code: INVALID_SETTINGS, message: invalid.message })),
  )
}

/** The estimate of the next request from the log as it is now. */
export const estimate = (events: ReadonlyArray<SessionLog.SessionEvent>, b: Budget): Compaction.Estimate =>
  Compaction.estimate(events, { fixedTokens: b.fixedTokens, toolResultLimitChars: b.limitChars })

const failed = (message: string): Failure => ({ code: COMPACTION_FAILED, message })

/** The text of a summary response, or why it is not a summary. */
const summaryOf = (result: Assembler.Assembled): Either.Either<string, string> => {
  const finish = result.finish
  if (finish.kind === "error" || finish.kind === "aborted") return Either.left(finish.failure.message)
  if (finish.kind === "max-tokens") return Either.left("the summary was cut off at the output limit")
  const text = result.blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("").trim()
  return text === "" ? Either.left("the model answered with no summary") : Either.right(text)
}

/** What a compaction did: the estimates before and after, or nothing to cut. */
export type Compacted =
  | { readonly _tag: "compacted"; readonly tokensBefore: number; readonly tokensAfter: number }
  /** The history is all within `keepRecentTokens` (or has no allowed cut): `tokens` is its estimate. */
  | { readonly _tag: "nothing-to-cut"; readonly tokens: number }

/**
 * Summarises the history before the cut and writes `context/compaction`
 * (flushed). `step` numbers the summary requests in the log. A failure of the
 * summary (the provider, the output limit, the cancel) is the `Failure` the
 * turn ends with; no compaction event is written then.
 */
export const run = (
  deps: TurnDeps,
  b: Budget,
  step: number,
  /** What the user asked the summary to keep in view (`/compact <focus>`). */
  focus?: string,
): Effect.Effect<Either.Either<Compacted, Failure>, StoreError.StoreError> =>
  Effect.gen(function*() {
    const events = Chunk.toReadonlyArray(yield* Journal.history(deps.journal))
    const before = estimate(events, b)
    const target = yield* AnswerRoom.target(deps, b)
    const cut = yield* AnswerRoom.cut(deps, b, target, events)
    if (cut === undefined) return Either.right({ _tag: "nothing-to-cut", tokens: before.tokens } as const)
    const { contextWindow } = b.info
    yield* deps.emit({ type: "compaction", phase: "start" })
    const parts = yield* AnswerRoom.parts(deps, b, target, cut)
    let summary = cut.previousSummary
    let attempt = 0
    const retries = yield* Schedule.driver(Retry.schedule(deps.config.retry))
    for (const part of parts) {
      const request = AnswerRoom.summaryRequest(deps, b, part, summary, focus)
      let result: Assembler.Assembled
      for (;;) {
        yield* deps.writer.log([Events.summaryRequestStart(deps.journal.route, step, ++attempt)])
        yield* deps.writer.flush
        const streamed = yield* Attempt.run(deps, request, false)
        result = Assembler.finish(streamed.state)
        // Shown to nobody, so a transient failure is tried again whatever had streamed.
        if (result.finish.kind !== "error" || !isTransient(result.finish.failure.code)) break
        const waited = yield* TurnContext.unlessCancelled(deps, Effect.option(retries.next(result.finish.failure)))
        if (Option.isNone(waited) || Option.isNone(waited.value)) break
        yield* deps.emit({ type: "retry", attempt: waited.value.value.attempt, delayMs: waited.value.value.delayMs, failure: result.finish.failure })
      }
      if (result.finish.kind !== "error" && result.finish.kind !== "aborted") {
        yield* deps.writer.log([Events.assistantMessage(deps.journal.route, result)])
      }
      const text = summaryOf(result)
      if (Either.isLeft(text)) {
        return Either.left(failed(
          `the history could not be compacted to fit ${deps.journal.route.provider}/${deps.journal.route.model}'s ${contextWindow}-token context window: ${text.left}; the session is unchanged`,
        ))
      }
      summary = text.right
    }
    const tokensAfter = Compaction.tokensAfter(cut, summary!, b.fixedTokens)
    yield* deps.writer.log([Events.compaction({
      summary: summary!,
      firstKeptSeq: cut.firstKeptSeq,
      tokensBefore: before.tokens,
      tokensAfter,
      provider: deps.journal.route.provider,
      model: deps.journal.route.model,
    })])
    yield* deps.writer.flush
    yield* deps.emit({ type: "compaction", phase: "done", tokensBefore: before.tokens, tokensAfter })
    return Either.right({ _tag: "compacted", tokensBefore: before.tokens, tokensAfter } as const)
  })
