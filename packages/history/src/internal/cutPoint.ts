/**
 * Where a compaction cuts the history: the most recent `keepRecentTokens` or
 * so stay verbatim, everything before the cut (since the previous compaction)
 * is summarised. A cut never separates a tool call from its result, nor a
 * user's message from the reply it got.
 */
import type { Message, SessionLog } from "@turnlog/protocol"
import * as History from "../History.js"
import { messageTokens } from "./tokens.js"

export interface Cut {
  /** The seq the next `context/compaction` keeps from. */
  readonly firstKeptSeq: number
  /** What the summary replaces: the messages after the previous compaction and before the cut. */
  readonly summarised: ReadonlyArray<Message>
  /** What stays verbatim after the summary. */
  readonly kept: ReadonlyArray<Message>
  /** The summary of the compaction this history starts from, when there is one: the new summary extends it. */
  readonly previousSummary: string | undefined
  readonly summarisedTokens: number
  readonly keptTokens: number
}

const isToolResult = (message: Message): boolean => message.content.some((b) => b.type === "tool-result")

/**
 * `ok[c]` says whether the history may be cut before `messages[c]`: no call
 * before it waits for a result at or after it, it is not a tool result, and it
 * is not the reply to the user message before it. A call that is never
 * answered in these messages holds no cut back (it has nothing to be parted from).
 */
export const cutPoints = (messages: ReadonlyArray<Message>): Array<boolean> => {
  const answered = new Set<string>()
  for (const message of messages) {
    for (const block of message.content) if (block.type === "tool-result") answered.add(block.toolCallId)
  }
  const waiting = new Set<string>()
  const ok = new Array<boolean>(messages.length)
  for (let c = 0; c < messages.length; c++) {
    const message = messages[c]!
    const previous = c > 0 ? messages[c - 1] : undefined
    const reply = message.role === "assistant" && previous !== undefined && previous.role === "user" &&
      previous.source.kind !== "tool"
    ok[c] = c > 0 && waiting.size === 0 && !isToolResult(message) && !reply
    for (const block of message.content) {
      if (block.type === "tool-call" && answered.has(block.id)) waiting.add(block.id)
      else if (block.type === "tool-result") waiting.delete(block.toolCallId)
    }
  }
  return ok
}

/**
 * The cut for the history of `events`: the latest allowed cut that keeps at
 * least `keepRecentTokens`; failing that (the older part has no allowed cut),
 * the earliest allowed cut. None when the whole history is within
 * `keepRecentTokens` or no cut is allowed.
 */
export const selectCut = (
  events: ReadonlyArray<SessionLog.SessionEvent>,
  keepRecentTokens: number,
  toolResultLimitChars?: number,
): Cut | undefined => {
  const view = History.view(events)
  const { messages, seqs } = view
  const ok = cutPoints(messages)
  const tokens = messages.map((m) => messageTokens(m, toolResultLimitChars))
  let total = 0
  for (const t of tokens) total += t
  if (total <= keepRecentTokens) return undefined
  let kept = 0
  let chosen = -1
  let earliest = -1
  for (let c = messages.length - 1; c > 0; c--) {
    kept += tokens[c]!
    if (!ok[c]) continue
    if (kept >= keepRecentTokens) {
      chosen = c
      break
    }
    earliest = c
  }
  if (chosen < 0) chosen = earliest
  if (chosen < 0) return undefined
  let keptTokens = 0
  for (let i = chosen; i < tokens.length; i++) keptTokens += tokens[i]!
  return {
    firstKeptSeq: seqs[chosen]!,
    summarised: messages.slice(0, chosen),
    kept: messages.slice(chosen),
    previousSummary: view.compaction?.data.summary,
    summarisedTokens: total - keptTokens,
    keptTokens,
  }
}
