/**
 * Closing a turn left open by a process that died mid-turn. The log must say
 * what happened to every tool call the model made in that turn before the
 * session continues: a provider will not accept a tool call without a result,
 * and the user must know whether a side effect may already have happened.
 *
 * Pure: every layer computes the same closing events and writes them durably
 * at `open`; `read` only reports them as missing.
 */
import { makeMessageId, makeToolResult, SessionLog } from "@turnlog/protocol"

export const TOOL_NOT_STARTED = "TOOL_NOT_STARTED"
export const TOOL_OUTCOME_UNKNOWN = "TOOL_OUTCOME_UNKNOWN"

/** The result of a tool call whose intent was never logged: it did not run. */
export const TOOL_NOT_STARTED_CONTENT = "the tool was not started because the process stopped"
/** The result of a tool call that was logged as starting but never finished. */
export const TOOL_OUTCOME_UNKNOWN_CONTENT = "it may or may not have run; check before retrying"

/** Index of the `turn/start` of the last turn when it has no `turn/end`, else -1. */
export const openTurnStart = (events: ReadonlyArray<SessionLog.SessionEvent>): number => {
  for (let i = events.length - 1; i >= 0; i--) {
    const type = events[i]!.type
    if (type === "turn/end") return -1
    if (type === "turn/start") return i
  }
  return -1
}

const resultCallId = (event: SessionLog.EventOf<"tool/result">): string | undefined => {
  const source = event.data.message.source
  if (source.kind === "tool") return source.callId
  for (const block of event.data.message.content) {
    if (block.type === "tool-result") return block.toolCallId
  }
  return undefined
}

/**
 * The events that close the open last turn, stamped from `nextSeq`: an error
 * `tool/result` for each tool call of the turn without one, then
 * `turn/end {interrupted}`. Empty when the last turn is closed.
 */
export const closeOpenTurn = (
  events: ReadonlyArray<SessionLog.SessionEvent>,
  time: string = new Date().toISOString(),
): Array<SessionLog.SessionEvent> => {
  const start = openTurnStart(events)
  if (start < 0) return []
  const calls: Array<string> = []
  const intents = new Set<string>()
  const results = new Set<string>()
  for (let i = start + 1; i < events.length; i++) {
    const event = events[i]!
    switch (event.type) {
      case "assistant/message":
        for (const block of event.data.message.content) {
          if (block.type === "tool-call") calls.push(block.id)
        }
        break
      case "tool/call":
        intents.add(event.data.callId)
        break
      case "tool/result": {
        const callId = resultCallId(event)
        if (callId !== undefined) results.add(callId)
        break
      }
      default:
        break
    }
  }
  const inputs: Array<SessionLog.EventInput> = []
  const seen = new Set<string>()
  for (const callId of calls) {
    // A provider may repeat an id; one result answers it.
    if (results.has(callId) || seen.has(callId)) continue
    seen.add(callId)
    const started = intents.has(callId)
    inputs.push({
      type: "tool/result",
      data: {
        message: makeToolResult({
          id: makeMessageId(),
          callId,
          content: started ? TOOL_OUTCOME_UNKNOWN_CONTENT : TOOL_NOT_STARTED_CONTENT,
          isError: true,
        }),
        code: started ? TOOL_OUTCOME_UNKNOWN : TOOL_NOT_STARTED,
      },
    })
  }
  inputs.push({ type: "turn/end", data: { reason: "interrupted" } })
  const last = events[events.length - 1]
  return SessionLog.stamp(last === undefined ? 1 : last.seq + 1, inputs, time)
}
