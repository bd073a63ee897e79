/**
 * How the agent's vocabulary reads in an editor: live `AgentUpdate`s and the
 * durable log, both as ACP `session/update`s, and a turn's end as a stop reason.
 * Kept apart from the server so that a prompt and a replayed history show a
 * tool call the same way.
 */
import { isAbsolute, resolve } from "node:path"
import type * as acp from "@agentclientprotocol/sdk"
import type { AgentLoop, Tools } from "@turnlog/agent"
import { FailureMessage, type ImageBlock, makeMessageId, type SessionLog, type TextBlock, type Usage } from "@turnlog/protocol"
import { Summary } from "@turnlog/store"
import { Counter } from "./CallIds.js"

/** What a session's tool calls are shown with: its cwd (paths are resolved against it) and its tools. */
export interface View {
  readonly cwd: string
  readonly tools: Tools.Service
}

/** A call as the model made it; `terminalId` once its command runs in the editor's terminal. */
export interface Call {
  readonly name: string
  readonly arguments: string
  readonly terminalId?: string
}

/**
 * A call as the editor sees it — the `tool_call` update and the permission
 * request carry the same fields: title, kind and raw input from the tool's
 * display, the tool's name, and the paths it acts on.
 */
export const describe = (view: View, toolCallId: string, call: Call): acp.ToolCall => {
  const display = view.tools.display(call)
  const locations = display.paths.map((path) => ({ path: absolute(view, path) }))
  const diffs = diffsOf(view, display)
  return {
    toolCallId,
    title: display.title,
    kind: display.kind,
    name: call.name,
    rawInput: display.input,
    ...(locations.length === 0 ? {} : { locations }),
    ...(diffs.length === 0 ? {} : { content: diffs }),
  }
}

const absolute = (view: View, path: string) => (isAbsolute(path) ? path : resolve(view.cwd, path))

/** The file changes a call asks for, as `diff` content (a whole file written has no old text). */
const diffsOf = (view: View, display: Tools.Display): Array<acp.ToolCallContent> =>
  (display.changes ?? []).map((change) => ({
    type: "diff",
    path: absolute(view, change.path),
    ...(change.oldText === undefined ? {} : { oldText: change.oldText }),
    newText: change.newText,
  }))

/** A finished call's content: the changes it asked for, its terminal (still shown), then its result as the model saw it. */
const resultContent = (view: View, call: Call | undefined, text: string): Array<acp.ToolCallContent> => [
  ...(call === undefined ? [] : diffsOf(view, view.tools.display(call))),
  ...(call?.terminalId === undefined ? [] : [{ type: "terminal" as const, terminalId: call.terminalId }]),
  textContent(text),
]

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
  ...(result === undefined ? {} : { content: resultContent(view, call, result.content) }),
})

const textContent = (text: string): acp.ToolCallContent => ({ type: "content", content: { type: "text", text } })

/**
 * The `session/update` a live update becomes, if the editor shows it at all.
 * `calls` are the turn's calls so far, by provider id: a result shows the
 * changes its call asked for, as the call did.
 */
export const fromAgentUpdate = (
  update: AgentLoop.AgentUpdate,
  view: View,
  ids: Counter,
  calls: Map<string, Call> = new Map(),
): acp.SessionUpdate | undefined => {
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
      calls.set(update.callId, update)
      return toolCall(view, ids.next(update.callId), update, "pending")
    case "tool-running":
      return { sessionUpdate: "tool_call_update", toolCallId: ids.latest(update.callId), status: "in_progress" }
    case "tool-terminal": {
      const call = calls.get(update.callId)
      if (call !== undefined) calls.set(update.callId, { ...call, terminalId: update.terminalId })
      return {
        sessionUpdate: "tool_call_update",
        toolCallId: ids.latest(update.callId),
        content: [{ type: "terminal", terminalId: update.terminalId }],
      }
    }
    case "tool-result":
      return {
        sessionUpdate: "tool_call_update",
        toolCallId: ids.latest(update.callId),
        status: update.isError ? "failed" : "completed",
        content: resultContent(view, calls.get(update.callId), update.content),
      }
    case "retry":
      // Shown as a thought: the editor sees why nothing streams for a while.
      return {
        sessionUpdate: "agent_thought_chunk",
        content: {
          type: "text",
          text: `The provider failed (${update.failure.code}: ${FailureMessage.readable(update.failure.message)}); retrying in ${
            update.delayMs < 1000 ? `${update.delayMs} ms` : `${Math.round(update.delayMs / 100) / 10} s`
          } (attempt ${update.attempt}).\n`,
        },
      }
    case "turn-start":
    case "usage":
    case "compaction":
    case "turn-end":
      return undefined
  }
}

/** What a prompt collects as its turn streams: how it ended, and the tokens of its requests. */
export interface TurnTally {
  readonly end?: Extract<AgentLoop.AgentUpdate, { readonly type: "turn-end" }>
  readonly usage?: Usage
}

export const emptyTurn: TurnTally = {}

export const addUsage = (turn: TurnTally, usage: Usage): TurnTally => {
  const sum = (a: number | undefined, b: number | undefined) => a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0)
  const before = turn.usage
  if (before === undefined) return { ...turn, usage }
  const cacheRead = sum(before.cacheReadTokens, usage.cacheReadTokens)
  const cacheWrite = sum(before.cacheWriteTokens, usage.cacheWriteTokens)
  const reasoning = sum(before.reasoningTokens, usage.reasoningTokens)
  return {
    ...turn,
    usage: {
      inputTokens: before.inputTokens + usage.inputTokens,
      outputTokens: before.outputTokens + usage.outputTokens,
      ...(cacheRead === undefined ? {} : { cacheReadTokens: cacheRead }),
      ...(cacheWrite === undefined ? {} : { cacheWriteTokens: cacheWrite }),
      ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
    },
  }
}

/**
 * The answer to `session/prompt`. The turn's token usage (every request of it
 * summed) goes in `usage`, the field the protocol's next version defines for
 * it; clients of this version ignore it.
 */
export const promptResponse = (
  reason: Exclude<SessionLog.TurnEndReason, "error">,
  usage: Usage | undefined,
): acp.PromptResponse => {
  const response: acp.PromptResponse & { usage?: unknown } = { stopReason: stopReason(reason) }
  if (usage !== undefined) {
    response.usage = {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      totalTokens: usage.inputTokens + usage.outputTokens,
      ...(usage.reasoningTokens === undefined ? {} : { thoughtTokens: usage.reasoningTokens }),
      ...(usage.cacheReadTokens === undefined ? {} : { cachedReadTokens: usage.cacheReadTokens }),
      ...(usage.cacheWriteTokens === undefined ? {} : { cachedWriteTokens: usage.cacheWriteTokens }),
    }
  }
  return response
}

/** How full the context is and what the session cost: the `usage_update` sent after each turn. */
export const usageUpdate = (usage: AgentLoop.ContextUsage): acp.SessionUpdate => ({
  sessionUpdate: "usage_update",
  used: usage.used,
  size: usage.size,
  ...(usage.costUsd === undefined ? {} : { cost: { amount: usage.costUsd, currency: "USD" } }),
})

/** A session's title as the store would give it, from its first prompt. */
export const titleOf = (content: ReadonlyArray<TextBlock | ImageBlock>): string =>
  Summary.titleOf({ id: makeMessageId(), role: "user", content: [...content], source: { kind: "user" } })

export const sessionInfo = (title: string): acp.SessionUpdate => ({ sessionUpdate: "session_info_update", title })

/** The title of a stored history: its first user message's, or "" before there is one. */
export const historyTitle = (events: ReadonlyArray<SessionLog.SessionEvent>): string => {
  for (const event of events) {
    if (event.type === "user/message" && event.data.message.source.kind === "user") {
      return Summary.titleOf(event.data.message)
    }
  }
  return ""
}

/** The standing permission answers a log holds, the latest for each tool. */
export const rulesOf = (
  events: ReadonlyArray<SessionLog.SessionEvent>,
): Array<{ readonly tool: string; readonly decision: "allow" | "deny" }> => {
  const rules = new Map<string, "allow" | "deny">()
  for (const event of events) {
    if (event.type === "permission/rule") rules.set(event.data.tool, event.data.decision)
  }
  return [...rules].map(([tool, decision]) => ({ tool, decision }))
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
        } else if (block.type === "image") {
          updates.push({ sessionUpdate: "user_message_chunk", content: { type: "image", data: block.data, mimeType: block.mimeType } })
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
