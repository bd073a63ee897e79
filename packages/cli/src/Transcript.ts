/**
 * A session as a person reads it: turn by turn, who said what, which tools
 * ran with what result, and where each turn stopped and why. Built from the
 * durable log alone (raw chunks are evidence, not conversation).
 */
import type { Failure, SessionLog } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"

export type Item =
  | { readonly role: "user"; readonly text: string }
  | { readonly role: "assistant"; readonly text: string; readonly reasoning?: string; readonly interrupted?: true }
  | { readonly role: "tool-call"; readonly callId: string; readonly name: string; readonly arguments: string }
  | { readonly role: "tool-result"; readonly callId: string; readonly content: string; readonly isError: boolean }

export interface Turn {
  readonly items: ReadonlyArray<Item>
  /** Absent while the turn is open (the process stopped mid-turn and the session was not reopened). */
  readonly end?: { readonly reason: SessionLog.TurnEndReason; readonly failure?: Failure }
}

export interface Transcript {
  readonly id: string
  readonly cwd: string
  readonly createdAt: string
  readonly turns: ReadonlyArray<Turn>
  readonly tornTail?: { readonly bytes: number; readonly line: number }
}

const textOf = (blocks: ReadonlyArray<{ readonly type: string; readonly text?: string }>, type: string): string =>
  blocks.flatMap((b) => (b.type === type && b.text !== undefined ? [b.text] : [])).join("")

export const fromSession = (session: SessionStore.LoadedSession): Transcript => {
  const turns: Array<Turn> = []
  let items: Array<Item> = []
  let open = false
  for (const event of session.events) {
    switch (event.type) {
      case "turn/start":
        if (open) turns.push({ items })
        items = []
        open = true
        break
      case "user/message":
        items.push({ role: "user", text: textOf(event.data.message.content, "text") })
        break
      case "assistant/message": {
        const content = event.data.message.content
        const text = textOf(content, "text")
        const reasoning = textOf(content, "reasoning")
        if (text !== "" || reasoning !== "" || event.data.interrupted === true) {
          items.push({
            role: "assistant",
            text,
            ...(reasoning === "" ? {} : { reasoning }),
            ...(event.data.interrupted === true ? { interrupted: true as const } : {}),
          })
        }
        for (const block of content) {
          if (block.type === "tool-call") {
            items.push({ role: "tool-call", callId: block.id, name: block.name, arguments: block.arguments })
          }
        }
        break
      }
      case "tool/result":
        for (const block of event.data.message.content) {
          if (block.type === "tool-result") {
            items.push({
              role: "tool-result",
              callId: block.toolCallId,
              content: block.content,
              isError: block.isError === true,
            })
          }
        }
        break
      case "turn/end":
        turns.push({
          items,
          end: { reason: event.data.reason, ...(event.data.failure === undefined ? {} : { failure: event.data.failure }) },
        })
        items = []
        open = false
        break
      case "request/start":
      case "assistant/chunk":
      case "tool/call":
        break
    }
  }
  if (open) turns.push({ items })
  const torn = session.recovery.tornTail
  return {
    id: session.header.id,
    cwd: session.header.cwd,
    createdAt: session.header.createdAt,
    turns,
    ...(torn === undefined ? {} : { tornTail: { bytes: torn.bytes, line: torn.line } }),
  }
}

const indent = (text: string, prefix = "  "): string =>
  text.split("\n").map((line) => `${prefix}${line}`).join("\n")

const clip = (text: string, max = 2000): string =>
  text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text

export const describeEnd = (end: Turn["end"]): string => {
  if (end === undefined) return "still open: the process stopped mid-turn (it is closed as interrupted when the session is next used)"
  switch (end.reason) {
    case "completed":
      return "completed"
    case "max-tokens":
      return "stopped at the output limit (max tokens); unfinished tool calls were dropped, not run"
    case "error":
      return `failed: ${end.failure === undefined ? "no cause recorded" : `${end.failure.message} (${end.failure.code})`}`
    case "cancelled":
      return "cancelled"
    case "interrupted":
      return "interrupted: the process stopped mid-turn"
    case "max-steps":
      return "stopped after the maximum number of steps"
  }
}

export const render = (transcript: Transcript): string => {
  const out: Array<string> = [`session ${transcript.id}  (${transcript.cwd}, created ${transcript.createdAt})`]
  transcript.turns.forEach((turn, i) => {
    out.push("", `── turn ${i + 1}`)
    for (const item of turn.items) {
      switch (item.role) {
        case "user":
          out.push("user:", indent(item.text))
          break
        case "assistant":
          if (item.reasoning !== undefined) out.push("assistant (thinking):", indent(item.reasoning))
          if (item.text !== "" || item.interrupted === true) {
            out.push(`assistant${item.interrupted === true ? " (interrupted)" : ""}:`, indent(item.text))
          }
          break
        case "tool-call":
          out.push(`tool call ${item.name} [${item.callId}]:`, indent(item.arguments))
          break
        case "tool-result":
          out.push(`tool result [${item.callId}]${item.isError ? " (error)" : ""}:`, indent(clip(item.content)))
          break
      }
    }
    out.push(`turn ${i + 1} ${describeEnd(turn.end)}`)
  })
  if (transcript.tornTail !== undefined) {
    out.push(
      "",
      `a torn tail of ${transcript.tornTail.bytes} bytes at line ${transcript.tornTail.line}: cut off and kept aside when the session is next opened`,
    )
  }
  return out.join("\n")
}
