/**
 * The conversation a log holds now: where it starts (the latest
 * `context/compaction`, else the first event), which messages a
 * `replay/degrade` sends provider-neutral, and the walk that collects the
 * messages from there. `History.fromEvents` and `History.view` are thin
 * wrappers; the compaction decisions read the same view.
 */
import type { Message, MessageId, SessionLog } from "@turnlog/protocol"

export type CompactionEvent = SessionLog.EventOf<"context/compaction">

/** What one pass over the log finds before collecting: the latest compaction and the degraded messages. */
export interface Plan {
  readonly compaction: CompactionEvent | undefined
  readonly compactionIndex: number
  readonly degraded: ReadonlySet<MessageId> | undefined
}

export const plan = (events: ReadonlyArray<SessionLog.SessionEvent>): Plan => {
  let compactionIndex = -1
  let degraded: Set<MessageId> | undefined
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    if (event.type === "context/compaction") {
      compactionIndex = i
    } else if (event.type === "replay/degrade") {
      for (const id of event.data.messageIds) (degraded ??= new Set()).add(id)
    }
  }
  const compaction = compactionIndex < 0 ? undefined : (events[compactionIndex] as CompactionEvent)
  return { compaction, compactionIndex, degraded }
}

/** The message as it is sent once a provider refused its replay state: the same content, no state. */
export const neutral = (message: Message): Message => {
  const source = message.source
  if (source.kind !== "model" || source.replayState === undefined) return message
  return { ...message, source: { kind: "model", provider: source.provider, model: source.model } }
}

/**
 * The conversation's messages from `events[start]` on, in log order, with the
 * seq of each message's event when `seqs` is given. A request marked as a
 * compaction's summary request is not conversation: its message (the one
 * that follows it before any other event but its chunks) is left out.
 */
export const collect = (
  events: ReadonlyArray<SessionLog.SessionEvent>,
  start: number,
  degraded: ReadonlySet<MessageId> | undefined,
  out: Array<Message>,
  seqs: Array<number> | undefined,
): void => {
  let summaryRequest = false
  for (let i = start; i < events.length; i++) {
    const event = events[i]!
    switch (event.type) {
      case "user/message":
      case "tool/result":
        summaryRequest = false
        out.push(event.data.message)
        seqs?.push(event.seq)
        break
      case "assistant/message": {
        if (summaryRequest) {
          summaryRequest = false
          break
        }
        const message = event.data.message
        if (message.content.length > 0) {
          out.push(degraded !== undefined && degraded.has(message.id) ? neutral(message) : message)
          seqs?.push(event.seq)
        }
        break
      }
      case "request/start":
        summaryRequest = event.data.purpose === "compaction"
        break
      case "assistant/chunk":
      case "assistant/chunks":
        break
      case "turn/start":
      case "tool/call":
      case "turn/end":
      case "context/compaction":
      case "replay/degrade":
        summaryRequest = false
        break
    }
  }
}

/** The index of the first event whose seq is at least `seq` (events are in seq order). */
const indexOfSeq = (events: ReadonlyArray<SessionLog.SessionEvent>, seq: number, end: number): number => {
  let lo = 0
  let hi = end
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (events[mid]!.seq < seq) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The assistant message event before `before` that made the tool call `callId`, or -1. */
const indexOfCall = (events: ReadonlyArray<SessionLog.SessionEvent>, callId: string, before: number): number => {
  for (let i = before - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type !== "assistant/message") continue
    for (const block of event.data.message.content) {
      if (block.type === "tool-call" && block.id === callId) return i
    }
  }
  return -1
}

/**
 * Where the conversation after a compaction starts: the event of
 * `firstKeptSeq` (never after the compaction itself: what follows it is never
 * summarised), moved back while a kept tool result answers a call made before
 * it — a request must not hold a result without its call, whatever cut another
 * build chose.
 */
export const keptStart = (events: ReadonlyArray<SessionLog.SessionEvent>, p: Plan): number => {
  const compaction = p.compaction!
  let start = indexOfSeq(events, Math.min(compaction.data.firstKeptSeq, compaction.seq), p.compactionIndex)
  for (;;) {
    const calls = new Set<string>()
    let earliest = start
    for (let i = start; i < events.length; i++) {
      const event = events[i]!
      if (event.type === "assistant/message") {
        for (const block of event.data.message.content) if (block.type === "tool-call") calls.add(block.id)
      } else if (event.type === "tool/result") {
        for (const block of event.data.message.content) {
          if (block.type !== "tool-result" || calls.has(block.toolCallId)) continue
          const at = indexOfCall(events, block.toolCallId, start)
          if (at >= 0 && at < earliest) earliest = at
        }
      }
    }
    if (earliest === start) return start
    start = earliest
  }
}
