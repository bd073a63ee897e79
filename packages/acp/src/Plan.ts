/**
 * The model's plan as the editor shows it: each successful `todo` call is
 * sent as a `plan` session update with its entries (the whole list, as the
 * protocol's plan update replaces the one before). Loading a session sends
 * the latest plan again, after the replayed history.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Todo } from "@turnlog/agent"
import type { SessionLog } from "@turnlog/protocol"

export const update = (entries: ReadonlyArray<Todo.Entry>): acp.SessionUpdate => ({
  sessionUpdate: "plan",
  entries: entries.map((e) => ({ content: e.content, status: e.status, priority: e.priority })),
})

/** The plan update a `todo` call's result brings, if the call is one and it succeeded. */
export const ofResult = (
  name: string,
  isError: boolean,
  call: { readonly arguments: string } | undefined,
): acp.SessionUpdate | undefined => {
  if (name !== Todo.NAME || isError || call === undefined) return undefined
  const entries = Todo.entriesOf(call.arguments)
  return entries === undefined ? undefined : update(entries)
}

/** The latest plan in a session's log: the last `todo` call whose result is not an error. */
export const latest = (events: ReadonlyArray<SessionLog.SessionEvent>): acp.SessionUpdate | undefined => {
  const calls = new Map<string, string>()
  let found: acp.SessionUpdate | undefined
  for (const event of events) {
    if (event.type === "tool/call" && event.data.name === Todo.NAME) calls.set(event.data.callId, event.data.arguments)
    if (event.type !== "tool/result") continue
    for (const block of event.data.message.content) {
      if (block.type !== "tool-result") continue
      const args = calls.get(block.toolCallId)
      if (args === undefined) continue
      calls.delete(block.toolCallId)
      found = ofResult(Todo.NAME, block.isError === true, { arguments: args }) ?? found
    }
  }
  return found
}
