/**
 * Every event a turn writes to the log, one constructor each, so the shape of
 * the log is read in one place. Optional fields are absent, never `undefined`.
 */
import { AssembledMessage, type Assembler } from "@turnlog/assembler"
import {
  type AssistantBlock,
  type ContentBlock,
  type Failure,
  type FinishReason,
  makeMessageId,
  makeToolResult,
  type Route,
  type SessionLog,
  type ToolCallBlock,
} from "@turnlog/protocol"

type Input<T extends SessionLog.EventType> = Omit<SessionLog.EventOf<T>, "seq" | "time">

export const turnStart = (): Input<"turn/start"> => ({ type: "turn/start", data: {} })

export const userMessage = (content: ReadonlyArray<ContentBlock>): Input<"user/message"> => ({
  type: "user/message",
  data: { message: { id: makeMessageId(), role: "user", content, source: { kind: "user" } } },
})

export const requestStart = (
  route: Route,
  step: number,
  attempt: number,
  system?: SessionLog.SystemRecord,
): Input<"request/start"> => ({
  type: "request/start",
  data: { provider: route.provider, model: route.model, step, attempt, ...(system === undefined ? {} : { system }) },
})

/** The request of a compaction's summary: logged like any other, marked as not conversation. */
export const summaryRequestStart = (route: Route, step: number, attempt: number): Input<"request/start"> => ({
  type: "request/start",
  data: { provider: route.provider, model: route.model, step, attempt, purpose: "compaction" },
})

export const compaction = (data: SessionLog.EventOf<"context/compaction">["data"]): Input<"context/compaction"> => ({
  type: "context/compaction",
  data,
})

export const replayDegrade = (data: SessionLog.EventOf<"replay/degrade">["data"]): Input<"replay/degrade"> => ({
  type: "replay/degrade",
  data,
})

// Raw chunks are written through `Journal.Writer.chunk`: one event each or a
// batch, as the session's log version says.

/** A finished response: the assembled blocks with the pruned envelope. */
export const assistantMessage = (route: Route, result: Assembler.Assembled): Input<"assistant/message"> => ({
  type: "assistant/message",
  data: {
    message: AssembledMessage.toMessage(result, route),
    finish: result.finish,
    ...(result.usage !== undefined ? { usage: result.usage } : {}),
  },
})

const CANCELLED: Failure = { code: "CANCELLED", message: "the turn was cancelled" }
const ABORTED: FinishReason = { kind: "aborted", failure: CANCELLED }

/** What the user saw of a response the cancel (or `finish`, another cut) cut off. */
export const interruptedMessage = (
  route: Route,
  blocks: ReadonlyArray<AssistantBlock>,
  finish: FinishReason = ABORTED,
): Input<"assistant/message"> => ({
  type: "assistant/message",
  data: {
    message: {
      id: makeMessageId(),
      role: "assistant",
      content: blocks,
      // No replay state: a response cut off mid-stream has no native form to restore.
      source: { kind: "model", provider: route.provider, model: route.model },
    },
    finish,
    interrupted: true,
  },
})

/** The intent to run a call, durable before it runs. */
export const toolCall = (call: ToolCallBlock): Input<"tool/call"> => ({
  type: "tool/call",
  data: { callId: call.id, name: call.name, arguments: call.arguments },
})

/** What a call gave the model; `code` names the failure of a call that failed. */
export interface ToolOutcome {
  readonly content: string
  readonly isError: boolean
  readonly code?: string
}

export const toolResult = (call: ToolCallBlock, outcome: ToolOutcome): Input<"tool/result"> => {
  const message = makeToolResult({
    id: makeMessageId(),
    callId: call.id,
    content: outcome.content,
    isError: outcome.isError,
  })
  return { type: "tool/result", data: outcome.code === undefined ? { message } : { message, code: outcome.code } }
}

export const turnEnd = (reason: SessionLog.TurnEndReason, failure?: Failure): Input<"turn/end"> => ({
  type: "turn/end",
  data: failure === undefined ? { reason } : { reason, failure },
})
