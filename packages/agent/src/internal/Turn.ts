/**
 * One turn: the user's message, then steps — a provider request whose chunks
 * are logged before they are assembled, and the tool calls it asked for —
 * until the model stops, the output limit cuts it off, it fails, the user
 * cancels, or the step budget is spent. Every way out writes `turn/end`, so a
 * turn left open in the log means the process died.
 *
 * Cancellation is a signal, not an interruption: the turn races each wait
 * (the stream, a retry's backoff, a permission question, a running tool)
 * against it and then closes itself durably.
 */
import { Deferred, Duration, Effect, Option, Stream } from "effect"
import { Assembler } from "@turnlog/assembler"
import { History } from "@turnlog/history"
import type { LlmAdapter } from "@turnlog/llm"
import {
  type ContentBlock,
  type Failure,
  makeMessageId,
  makeToolResult,
  type Message,
  type SessionLog,
  type StreamChunk,
  type ToolCallBlock,
} from "@turnlog/protocol"
import type { StoreError } from "@turnlog/store"
import type { AgentUpdate } from "../AgentLoop.js"
import type * as Permissions from "../Permissions.js"
import { PermissionDenied, ToolCancelled, type ToolError, ToolFailed } from "../ToolError.js"
import type * as Tools from "../Tools.js"
import type { Journal, Writer } from "./Journal.js"

export interface RetryPolicy {
  readonly maxRetries: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
}

export interface TurnConfig {
  readonly maxSteps: number
  /** How long a provider stream may send nothing before the attempt is abandoned as a `TIMEOUT` failure. */
  readonly streamIdleTimeoutMs: number
  readonly maxTokens?: number
  readonly system?: string
  readonly retry: RetryPolicy
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
}

/** Provider failures worth another attempt: nothing about the request was wrong. */
export const TRANSIENT_CODES: ReadonlySet<string> = new Set(["RATE_LIMIT", "SERVER", "TRANSPORT", "TIMEOUT"])

const CANCELLED: Failure = { code: "CANCELLED", message: "the turn was cancelled" }

/** How a step ended: the turn ended inside it, or the model asked for tools. */
type StepOutcome =
  | { readonly _tag: "ended" }
  | { readonly _tag: "tools"; readonly calls: ReadonlyArray<ToolCallBlock> }

const ENDED: StepOutcome = { _tag: "ended" }

/** Whether a chunk carries something the user saw: a retry would show it twice. */
const isContent = (chunk: StreamChunk): boolean => {
  switch (chunk.type) {
    case "text-delta":
    case "reasoning-delta":
      return chunk.text !== ""
    case "tool-call-delta":
    case "block-end":
      return true
    case "block-start":
    case "usage":
    case "finish":
      return false
  }
}

/** What one attempt streamed. */
interface Attempt {
  readonly state: Assembler.State
  readonly sawContent: boolean
  readonly sawFinish: boolean
}

export const run = (deps: TurnDeps, content: ReadonlyArray<ContentBlock>): Effect.Effect<void, StoreError.StoreError> => {
  const { adapter, config, emit, journal, writer } = deps
  const { provider, model } = journal.route

  /** `Some` with the effect's value, or `None` when the user cancelled first. */
  const unlessCancelled = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<Option.Option<A>, E> =>
    Effect.raceFirst(
      Effect.map(effect, Option.some),
      Effect.as(Deferred.await(deps.cancel), Option.none<A>()),
    )

  const endTurn = (reason: SessionLog.TurnEndReason, failure?: Failure) =>
    Effect.gen(function*() {
      const data = failure === undefined ? { reason } : { reason, failure }
      yield* writer.log([{ type: "turn/end", data }])
      yield* writer.flush
      yield* emit({ type: "turn-end", ...data })
      return ENDED
    })

  const request = (): LlmAdapter.LlmRequest => ({
    provider,
    model,
    messages: History.fromEvents(journal.history),
    sessionId: journal.id,
    ...(config.system !== undefined ? { system: config.system } : {}),
    ...(deps.tools.specs.length > 0 ? { tools: deps.tools.specs } : {}),
    ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
  })

  const delayFor = (attempt: number, failure: Failure): number =>
    failure.retryAfterMs ?? Math.min(config.retry.baseDelayMs * 2 ** (attempt - 1), config.retry.maxDelayMs)

  /**
   * What ends an attempt whose stream went quiet: a connection that stays open
   * and sends nothing would otherwise hold the turn for as long as the HTTP
   * client waits (minutes). It is a transient failure: retried while nothing
   * was shown, else the turn ends with it.
   */
  const stalled: StreamChunk = {
    type: "finish",
    reason: {
      kind: "error",
      failure: {
        code: "TIMEOUT",
        message: `${provider} sent nothing for ${config.streamIdleTimeoutMs / 1000} s; the request was abandoned`,
      },
    },
  }

  /** Streams one attempt: each chunk logged, then folded, text and reasoning sent on live. */
  const streamAttempt = (): Effect.Effect<Attempt, StoreError.StoreError> =>
    Effect.suspend(() => {
      let state = Assembler.initial
      let sawContent = false
      let sawFinish = false
      return adapter.stream(request()).pipe(
        // Quiet for too long: the request is dropped (closing its stream aborts
        // it) and the attempt ends with a logged failure, like any other.
        Stream.timeoutTo(Duration.millis(config.streamIdleTimeoutMs), Stream.succeed(stalled)),
        // A cancel ends the stream (and so the HTTP request) where it is.
        Stream.interruptWhenDeferred(deps.cancel),
        Stream.runForEach((chunk) =>
          Effect.gen(function*() {
            // Logged first: the raw chunk is the evidence, whatever assembly makes of it.
            yield* writer.log([{ type: "assistant/chunk", data: { chunk } }])
            state = Assembler.step(state, chunk)
            if (isContent(chunk)) sawContent = true
            if (chunk.type === "finish") sawFinish = true
            else if (chunk.type === "text-delta") yield* emit({ type: "text-delta", text: chunk.text })
            else if (chunk.type === "reasoning-delta") yield* emit({ type: "reasoning-delta", text: chunk.text })
          })
        ),
        Effect.map(() => ({ state, sawContent, sawFinish })),
      )
    })

  /** Keeps the text and reasoning the user saw before the cancel, then closes the turn. */
  const endInterrupted = (state: Assembler.State) =>
    Effect.gen(function*() {
      const blocks = Assembler.interrupted(state)
      if (blocks.length > 0) {
        const message: Message = {
          id: makeMessageId(),
          role: "assistant",
          content: blocks,
          // No replay state: a response cut off mid-stream has no native form to restore.
          source: { kind: "model", provider, model },
        }
        yield* writer.log([{
          type: "assistant/message",
          data: { message, finish: { kind: "aborted", failure: CANCELLED }, interrupted: true },
        }])
      }
      return yield* endTurn("cancelled")
    })

  /** One provider request and what it decided, retrying transient failures. */
  const step = (stepNumber: number): Effect.Effect<StepOutcome, StoreError.StoreError> =>
    Effect.gen(function*() {
      for (let attempt = 1;; attempt++) {
        if (yield* Deferred.isDone(deps.cancel)) return yield* endTurn("cancelled")
        yield* writer.log([{ type: "request/start", data: { provider, model, step: stepNumber, attempt } }])
        yield* writer.flush

        const streamed = yield* streamAttempt()
        if (!streamed.sawFinish && (yield* Deferred.isDone(deps.cancel))) return yield* endInterrupted(streamed.state)

        const result = Assembler.finish(streamed.state)
        const finish = result.finish
        if (finish.kind === "error" || finish.kind === "aborted") {
          const retry = TRANSIENT_CODES.has(finish.failure.code) && attempt <= config.retry.maxRetries &&
            !streamed.sawContent
          if (retry) {
            const delayMs = delayFor(attempt, finish.failure)
            yield* emit({ type: "retry", attempt: attempt + 1, delayMs, failure: finish.failure })
            const slept = yield* unlessCancelled(Effect.sleep(Duration.millis(delayMs)))
            if (Option.isNone(slept)) return yield* endTurn("cancelled")
            continue
          }
          // The failed attempt's chunks stay logged; no message is made of them.
          if (result.usage !== undefined) yield* emit({ type: "usage", usage: result.usage })
          return yield* endTurn("error", finish.failure)
        }

        const message: Message = {
          id: makeMessageId(),
          role: "assistant",
          content: result.blocks,
          source: {
            kind: "model",
            provider,
            model,
            ...(result.replayState !== undefined ? { replayState: result.replayState } : {}),
          },
        }
        yield* writer.log([{
          type: "assistant/message",
          data: { message, finish, ...(result.usage !== undefined ? { usage: result.usage } : {}) },
        }])
        if (result.usage !== undefined) yield* emit({ type: "usage", usage: result.usage })

        // The assembler already dropped tool calls from a max-tokens response; never run one anyway.
        if (finish.kind === "max-tokens") return yield* endTurn("max-tokens")
        const calls = result.blocks.filter((b): b is ToolCallBlock => b.type === "tool-call")
        if (calls.length > 0) return { _tag: "tools", calls } as const
        return yield* endTurn("completed")
      }
    })

  /** Stores a call's result; `announced` calls (a `tool-call` update went out) also stream it. */
  const logResult = (
    call: ToolCallBlock,
    outcome: { content: string; isError: boolean; code?: string },
    announced = true,
  ) =>
    Effect.gen(function*() {
      const message = makeToolResult({
        id: makeMessageId(),
        callId: call.id,
        content: outcome.content,
        isError: outcome.isError,
      })
      yield* writer.log([{
        type: "tool/result",
        data: outcome.code === undefined ? { message } : { message, code: outcome.code },
      }])
      if (announced) {
        yield* emit({
          type: "tool-result",
          callId: call.id,
          name: call.name,
          content: outcome.content,
          isError: outcome.isError,
        })
      }
    })

  const failedWith = (error: ToolError) => ({ content: error.message, isError: true, code: error.code })

  /** Permission, then the run; every failure becomes the result the model sees. */
  const execute = (call: ToolCallBlock, started: { value: boolean }) =>
    Effect.gen(function*() {
      const context: Tools.ToolContext = { sessionId: journal.id, callId: call.id, cwd: journal.cwd }
      const prepared = yield* deps.tools.prepare(call, context)
      if (prepared.permission !== undefined) {
        const decision = yield* deps.permissions.decide({
          sessionId: journal.id,
          callId: call.id,
          tool: call.name,
          kind: prepared.permission.kind,
          title: prepared.permission.title,
          input: prepared.input,
        })
        if (decision !== "allow") {
          return yield* new PermissionDenied({ tool: call.name, title: prepared.permission.title })
        }
      }
      yield* emit({ type: "tool-running", callId: call.id, name: call.name })
      started.value = true
      return yield* prepared.run
    }).pipe(
      // A tool that throws is a failed call the model sees, like any other
      // tool problem; it never ends the turn. (Interruption is not a defect.)
      Effect.catchAllDefect((defect) =>
        Effect.fail(new ToolFailed({ tool: call.name, detail: defect instanceof Error ? defect.message : String(defect) }))
      ),
      Effect.match({
        onFailure: failedWith,
        onSuccess: (content) => ({ content, isError: false }),
      }),
    )

  /** Runs the calls in order; `false` when the turn was cancelled (and closed). */
  const runTools = (calls: ReadonlyArray<ToolCallBlock>) =>
    Effect.gen(function*() {
      for (let i = 0; i < calls.length; i++) {
        const call = calls[i]!
        if (yield* Deferred.isDone(deps.cancel)) {
          // Never started, so no intent is logged: the result says it did not run.
          for (const rest of calls.slice(i)) {
            yield* logResult(rest, failedWith(new ToolCancelled({ tool: rest.name, started: false })), false)
          }
          yield* endTurn("cancelled")
          return false
        }
        yield* writer.log([{ type: "tool/call", data: { callId: call.id, name: call.name, arguments: call.arguments } }])
        // Durable before anything can happen: after a crash the log says the call may have run.
        yield* writer.flush
        yield* emit({ type: "tool-call", callId: call.id, name: call.name, arguments: call.arguments })
        const started = { value: false }
        const outcome = yield* unlessCancelled(execute(call, started))
        yield* logResult(
          call,
          Option.getOrElse(outcome, () => failedWith(new ToolCancelled({ tool: call.name, started: started.value }))),
        )
      }
      return true
    })

  return Effect.gen(function*() {
    const message: Message = { id: makeMessageId(), role: "user", content, source: { kind: "user" } }
    yield* writer.log([{ type: "turn/start", data: {} }, { type: "user/message", data: { message } }])
    yield* emit({ type: "turn-start" })
    for (let stepNumber = 1;; stepNumber++) {
      const outcome = yield* step(stepNumber)
      if (outcome._tag === "ended") return
      if (!(yield* runTools(outcome.calls))) return
      // A cancel that came while the step's last call ran ends the turn as cancelled, even on its last step.
      if (yield* Deferred.isDone(deps.cancel)) {
        yield* endTurn("cancelled")
        return
      }
      if (stepNumber >= config.maxSteps) {
        yield* endTurn("max-steps")
        return
      }
    }
  })
}
