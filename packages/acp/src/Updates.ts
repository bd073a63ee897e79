/**
 * How the agent's vocabulary reads in an editor: live `AgentUpdate`s and the
 * durable log, both as ACP `session/update`s, and a turn's end as a stop reason.
 * Kept apart from the server so that a prompt and a replayed history show a
 * tool call the same way.
 */
import { isAbsolute, resolve } from "node:path"
import type * as acp from "@agentclientprotocol/sdk"
import type { AgentLoop } from "@turnlog/agent"
import type { SessionLog } from "@turnlog/protocol"

const TOOL_KINDS: Readonly<Record<string, acp.ToolKind>> = {
  read_file: "read",
  list_files: "search",
  write_file: "edit",
  run_command: "execute",
}

export const toolKind = (name: string): acp.ToolKind => TOOL_KINDS[name] ?? "other"

/** Tool arguments as an object when they parse as one (they are raw model JSON). */
export const parseArguments = (raw: string): unknown => {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

const field = (input: unknown, key: string): string | undefined => {
  if (typeof input !== "object" || input === null) return undefined
  const value = (input as Record<string, unknown>)[key]
  return typeof value === "string" ? value : undefined
}

/** A short human title: the tool and what it acts on. */
export const toolTitle = (name: string, input: unknown): string => {
  const target = field(input, "command") ?? field(input, "path")
  return target === undefined ? name : `${name}: ${target}`
}

const locations = (input: unknown, cwd: string | undefined): Array<acp.ToolCallLocation> | undefined => {
  const path = field(input, "path")
  if (path === undefined || cwd === undefined) return undefined
  return [{ path: isAbsolute(path) ? path : resolve(cwd, path) }]
}

export const toolCall = (
  call: { readonly callId: string; readonly name: string; readonly arguments: string },
  cwd: string | undefined,
  status: acp.ToolCallStatus,
  result?: { readonly content: string; readonly isError: boolean },
): acp.SessionUpdate => {
  const input = parseArguments(call.arguments)
  const where = locations(input, cwd)
  return {
    sessionUpdate: "tool_call",
    toolCallId: call.callId,
    title: toolTitle(call.name, input),
    kind: toolKind(call.name),
    status,
    rawInput: input,
    ...(where === undefined ? {} : { locations: where }),
    ...(result === undefined ? {} : { content: [textContent(result.content)] }),
  }
}

const textContent = (text: string): acp.ToolCallContent => ({ type: "content", content: { type: "text", text } })

/** The `session/update` a live update becomes, if the editor shows it at all. */
export const fromAgentUpdate = (update: AgentLoop.AgentUpdate, cwd: string | undefined): acp.SessionUpdate | undefined => {
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
      return toolCall(update, cwd, "pending")
    case "tool-running":
      return { sessionUpdate: "tool_call_update", toolCallId: update.callId, status: "in_progress" }
    case "tool-result":
      return {
        sessionUpdate: "tool_call_update",
        toolCallId: update.callId,
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
 * output (a call whose result never arrived shows as failed).
 */
export const fromHistory = (
  events: ReadonlyArray<SessionLog.SessionEvent>,
  cwd: string,
): Array<acp.SessionUpdate> => {
  const results = new Map<string, { content: string; isError: boolean }>()
  for (const event of events) {
    if (event.type !== "tool/result") continue
    for (const block of event.data.message.content) {
      if (block.type === "tool-result") {
        results.set(block.toolCallId, { content: block.content, isError: block.isError === true })
      }
    }
  }
  const updates: Array<acp.SessionUpdate> = []
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
            const result = results.get(block.id)
            const call = { callId: block.id, name: block.name, arguments: block.arguments }
            updates.push(
              result === undefined
                ? toolCall(call, cwd, "failed")
                : toolCall(call, cwd, result.isError ? "failed" : "completed", result),
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
