/**
 * The tool calls of one response, run in order: each intent made durable
 * before the call can do anything, the permission asked, the tool run, and
 * its result logged whatever happened — a failure, a denial, a tool that
 * throws and a cancel all become a result the model sees.
 */
import { Effect, Option, Ref } from "effect"
import { SessionLog, type ToolCallBlock } from "@turnlog/protocol"
import type { StoreError } from "@turnlog/store"
import * as Permissions from "../Permissions.js"
import * as PlanExit from "../PlanExit.js"
import { PermissionDenied, ToolCancelled, type ToolError, ToolFailed } from "../ToolError.js"
import type * as Tools from "../Tools.js"
import * as Events from "./Events.js"
import * as Journal from "./Journal.js"
import * as TurnContext from "./TurnContext.js"

const failedWith = (error: ToolError): Events.ToolOutcome => ({
  content: error.message,
  isError: true,
  code: error.code,
})

/** Stores a call's result; `announced` calls (a `tool-call` update went out) also stream it. */
const logResult = (
  deps: TurnContext.TurnDeps,
  call: ToolCallBlock,
  outcome: Events.ToolOutcome,
  announced: boolean,
): Effect.Effect<void, StoreError.StoreError> =>
  Effect.zipRight(
    deps.writer.log([Events.toolResult(call, outcome)]),
    announced
      ? deps.emit({
        type: "tool-result",
        callId: call.id,
        name: call.name,
        content: outcome.content,
        isError: outcome.isError,
      })
      : Effect.void,
  )

/** Permission, then the run; every failure becomes the result the model sees. `started` is set once it runs. */
const execute = (
  deps: TurnContext.TurnDeps,
  call: ToolCallBlock,
  started: Ref.Ref<boolean>,
): Effect.Effect<Events.ToolOutcome> =>
  Effect.gen(function*() {
    const { journal } = deps
    const host = deps.hosts === undefined ? undefined : yield* deps.hosts.hostFor(
      { sessionId: journal.id, callId: call.id },
      (terminalId) => deps.emit({ type: "tool-terminal", callId: call.id, name: call.name, terminalId }),
    )
    const context: Tools.ToolContext = { sessionId: journal.id, callId: call.id, cwd: journal.cwd, ...(host === undefined ? {} : { host }) }
    const mode = SessionLog.modeOf(yield* Journal.history(journal))
    if (call.name === PlanExit.NAME && mode !== "read-only") {
      return yield* new ToolFailed({ tool: call.name, detail: `the session is in ${mode} mode, not read-only: there is no plan mode to leave` })
    }
    const prepared = yield* deps.tools.prepare(call, context)
    if (prepared.permission !== undefined) {
      const decision = yield* Permissions.decideIn(deps.permissions, mode, {
        sessionId: journal.id,
        callId: call.id,
        tool: call.name,
        kind: prepared.permission.kind,
        title: prepared.permission.title,
        input: prepared.input,
      })
      if (decision !== "allow") {
        return yield* new PermissionDenied({
          tool: call.name,
          title: prepared.permission.title,
          // Refused by the mode, not by anyone asked: the model learns why.
          ...(mode === "read-only" && Permissions.byMode(mode, prepared.permission.kind) === "deny"
            ? { because: "the session is in read-only mode: nothing is written or run" }
            : {}),
        })
      }
    }
    yield* deps.emit({ type: "tool-running", callId: call.id, name: call.name })
    yield* Ref.set(started, true)
    return yield* prepared.run
  }).pipe(
    // A tool that throws is a failed call the model sees, like any other
    // tool problem; it never ends the turn. (Interruption is not a defect.)
    Effect.catchAllDefect((defect) => Effect.fail(new ToolFailed({ tool: call.name, detail: defect instanceof Error ? defect.message : String(defect) }))),
    Effect.match({
      onFailure: failedWith,
      onSuccess: (content): Events.ToolOutcome => ({ content, isError: false }),
    }),
  )

/** One call: its intent durable, then run unless cancelled, then its result. */
const runOne = (deps: TurnContext.TurnDeps, call: ToolCallBlock): Effect.Effect<void, StoreError.StoreError> =>
  Effect.gen(function*() {
    yield* deps.writer.log([Events.toolCall(call)])
    // Durable before anything can happen: after a crash the log says the call may have run.
    yield* deps.writer.flush
    yield* deps.emit({ type: "tool-call", callId: call.id, name: call.name, arguments: call.arguments })
    const started = yield* Ref.make(false)
    const outcome = yield* TurnContext.unlessCancelled(deps, execute(deps, call, started))
    const result = Option.isSome(outcome)
      ? outcome.value
      : failedWith(new ToolCancelled({ tool: call.name, started: yield* Ref.get(started) }))
    // An approved plan: the session leaves read-only mode before the result says so.
    if (call.name === PlanExit.NAME && !result.isError) {
      yield* deps.writer.log([{ type: "session/mode", data: { mode: PlanExit.TARGET } }])
    }
    yield* logResult(deps, call, result, true)
  })

/** Runs the calls in order; `false` when the turn was cancelled (and closed). */
export const run = (
  deps: TurnContext.TurnDeps,
  calls: ReadonlyArray<ToolCallBlock>,
): Effect.Effect<boolean, StoreError.StoreError> =>
  Effect.gen(function*() {
    for (const [i, call] of calls.entries()) {
      if (yield* TurnContext.isCancelled(deps)) {
        // Never started, so no intent is logged: the result says it did not run.
        for (const rest of calls.slice(i)) {
          yield* logResult(deps, rest, failedWith(new ToolCancelled({ tool: rest.name, started: false })), false)
        }
        yield* TurnContext.end(deps, "cancelled")
        return false
      }
      yield* runOne(deps, call)
    }
    return true
  })
