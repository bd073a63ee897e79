/**
 * How the agent's vocabulary reads in an editor: live `AgentUpdate`s and the
 * durable log, both as ACP `session/update`s, and a turn's end as a stop reason.
 * Kept apart from the server so that a prompt and a replayed history show a
 * tool call the same way.
 */
import { isAbsolute, resolve } from "node:path"
import type * as acp from "@agentclientprotocol/sdk"
import type { AgentUpdate } from "@turnlog/agent/AgentLoop"
import type * as Tools from "@turnlog/agent/Tools"
import type { SessionLog } from "@turnlog/protocol"
import { Counter } from "./CallIds.js"

/** What a session's tool calls are shown with: its cwd (paths are resolved against it) and its tools. */
export interface View {
  readonly cwd: string
  readonly tools: Tools.Service
}

/** A call as the model made it. */
export interface Call {
  readonly name: string
  readonly arguments: string
}

/**
 * A call as the editor sees it — the `tool_call` update and the permission
 * request carry the same fields: title, kind and raw input from the tool's
 * display, the tool's name, and the paths it acts on.
 */
export const describe = (view: View, toolCallId: string, call: Call): acp.ToolCall => {
  const display = view.tools.display(call)
  const locations = display.paths.map((path) => ({ path: isAbsolute(path) ? path : resolve(view.cwd, path) }))
  return {
    toolCallId,
    title: display.title,
    kind: display.kind,
    name: call.name,
    rawInput: display.input,
    ...(locations.length === 0 ? {} : { locations }),
  }
}

export const toolCall = (
  view: View,
  toolCallId: string,
  call: Call,
  status: acp.ToolCallStatus,
  result?: { readonly content: string; readonly isError: boolean },
): acp.SessionUpdate => ({
  sessionUpdate: "tool_call",
  ...describe(view, toolCallId, call),
  status,
  ...(result === undefined ? {} : { content: [textContent(result.content)] }),
})

const textContent = (text: string): acp.ToolCallContent => ({ type: "content", content: { type: "text", text } })

/** The `session/update` a live update becomes, if the editor shows it at all. */
export const fromAgentUpdate = (update: AgentUpdate, view: View, ids: Counter): acp.SessionUpdate | undefined => {
  switch (update.type) {
    case "text-delta":
      return update.text === "" ? undefined : {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: update.text },
      }
    case "reasoning-delta":
      return update.text === "" ? undefined : {
        sessionUpdate: "agent_thought_chunk",
        content: { type: "text", text: update.text },
      }
    case "tool-call":
      return toolCall(view, ids.next(update.callId), update, "pending")
    case "tool-running":
      return { sessionUpdate: "tool_call_update", toolCallId: ids.latest(update.callId), status: "in_progress" }
    case "tool-result":
      return {
        sessionUpdate: "tool_call_update",
        toolCallId: ids.latest(update.callId),
        status: update.isError ? "failed" : "completed",
        content: [textContent(update.content)],
      }
    case "turn-start":
    case "usage":
    case "retry":
    case "turn-end":
      return undefined
  }
}

/** How a turn that ended without error answers `session/prompt`. */
export const stopReason = (reason: Exclude<SessionLog.TurnEndReason, "error">): acp.StopReason => {
  switch (reason) {
    case "completed":
      return "end_turn"
    case "max-tokens":
      return "max_tokens"
    case "max-steps":
      return "max_turn_requests"
    case "cancelled":
    case "interrupted":
      return "cancelled"
  }
}

/**
 * The whole stored history as the editor would have seen it live: user text,
 * agent text and thoughts, and each tool call once, with its final status and
 * output (a call whose result never arrived shows as failed). A result belongs
 * to the earliest call before it with its id that has none yet, so calls that
 * share a provider id each show their own. `ids` ends counting every call, for
 * the live turns that follow.
 */
export const fromHistory = (
  events: ReadonlyArray<SessionLog.SessionEvent>,
  view: View,
  ids: Counter = new Counter(),
): Array<acp.SessionUpdate> => {
  // Calls in log order; each result goes to the oldest call with its id still waiting for one.
  const results: Array<{ content: string; isError: boolean } | undefined> = []
  const waiting = new Map<string, Array<number>>()
  for (const event of events) {
    if (event.type === "assistant/message") {
      for (const block of event.data.message.content) {
        if (block.type !== "tool-call") continue
        const queue = waiting.get(block.id) ?? []
        queue.push(results.length)
        waiting.set(block.id, queue)
        results.push(undefined)
      }
    } else if (event.type === "tool/result") {
      for (const block of event.data.message.content) {
        if (block.type !== "tool-result") continue
        const index = waiting.get(block.toolCallId)?.shift()
        if (index !== undefined) results[index] = { content: block.content, isError: block.isError === true }
      }
    }
  }
  const updates: Array<acp.SessionUpdate> = []
  let callIndex = 0
  for (const event of events) {
    if (event.type === "user/message" && event.data.message.source.kind === "user") {
      for (const block of event.data.message.content) {
        if (block.type === "text" && block.text !== "") {
          updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: block.text } })
        }
      }
    } else if (event.type === "assistant/message") {
      for (const block of event.data.message.content) {
        switch (block.type) {
          case "text":
            if (block.text !== "") {
              updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: block.text } })
            }
            break
          case "reasoning":
            if (block.text !== "") {
              updates.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: block.text } })
            }
            break
          case "tool-call": {
            const result = results[callIndex++]
            const id = ids.next(block.id)
            const call = { name: block.name, arguments: block.arguments }
            updates.push(
              result === undefined
                ? toolCall(view, id, call, "failed")
                : toolCall(view, id, call, result.isError ? "failed" : "completed", result),
            )
            break
          }
          case "tool-result":
            break
        }
      }
    }
  }
  return updates
}
