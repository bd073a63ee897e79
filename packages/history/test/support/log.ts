/**
 * Session logs for tests, written turn by turn the way the agent writes them:
 * each turn a user message, then steps (a request, its assistant message, the
 * tool calls and their results), then a turn end.
 */
import { makeToolResult, type Message, MessageId, SessionLog, type Usage } from "@turnlog/protocol"

export const user = (id: string, text: string): Message => ({
  id: MessageId.make(id),
  role: "user",
  content: [{ type: "text", text }],
  source: { kind: "user" },
})

export const assistant = (
  id: string,
  text: string,
  calls: ReadonlyArray<string> = [],
  replayState?: unknown,
): Message => ({
  id: MessageId.make(id),
  role: "assistant",
  content: [
    ...(text === "" ? [] : [{ type: "text" as const, text }]),
    ...calls.map((call) => ({ type: "tool-call" as const, id: call, name: "read_file", arguments: `{"path":"${call}"}` })),
  ],
  source: { kind: "model", provider: "acme", model: "m1", ...(replayState === undefined ? {} : { replayState }) },
})

export const result = (id: string, callId: string, content: string): Message => makeToolResult({ id: MessageId.make(id), callId, content })

/** Builds a log event by event; `seq` is the seq the next event gets. */
export class Log {
  readonly events: Array<SessionLog.SessionEvent> = []
  get seq(): number {
    return this.events.length + 1
  }
  add(...inputs: ReadonlyArray<SessionLog.EventInput>): this {
    this.events.push(...SessionLog.stamp(this.seq, inputs, "t"))
    return this
  }
  turn(): this {
    return this.add({ type: "turn/start", data: {} })
  }
  say(message: Message): this {
    return this.add({ type: "user/message", data: { message } })
  }
  reply(message: Message, usage?: Usage): this {
    const finish = message.content.some((b) => b.type === "tool-call") ? "tool-calls" as const : "stop" as const
    return this.add(
      { type: "request/start", data: { provider: "acme", model: "m1" } },
      { type: "assistant/chunk", data: { chunk: { type: "finish", reason: { kind: finish } } } },
      { type: "assistant/message", data: { message, finish: { kind: finish }, ...(usage === undefined ? {} : { usage }) } },
    )
  }
  tool(message: Message): this {
    const block = message.content[0]!
    const callId = block.type === "tool-result" ? block.toolCallId : ""
    return this.add(
      { type: "tool/call", data: { callId, name: "read_file", arguments: "{}" } },
      { type: "tool/result", data: { message } },
    )
  }
  end(): this {
    return this.add({ type: "turn/end", data: { reason: "completed" } })
  }
  /** A compaction's summary request, logged like any other request, answered with `summary`. */
  summaryRequest(summary: string, usage?: Usage): this {
    return this.add(
      { type: "request/start", data: { provider: "acme", model: "m1", purpose: "compaction" } },
      { type: "assistant/chunk", data: { chunk: { type: "text-delta", index: 0, text: summary } } },
      {
        type: "assistant/message",
        data: {
          message: assistant(`sum-${this.seq}`, summary),
          finish: { kind: "stop" },
          ...(usage === undefined ? {} : { usage }),
        },
      },
    )
  }
  compaction(summary: string, firstKeptSeq: number, tokensAfter = 100): this {
    return this.add({
      type: "context/compaction",
      data: { summary, firstKeptSeq, tokensBefore: 1000, tokensAfter, provider: "acme", model: "m1" },
    })
  }
  degrade(...ids: ReadonlyArray<string>): this {
    return this.add({
      type: "replay/degrade",
      data: { messageIds: ids.map((id) => MessageId.make(id)), reason: "Invalid `signature` in `thinking` block", provider: "acme", model: "m1" },
    })
  }
  /** The seq of the event that logged the message `id`. */
  seqOf(id: string): number {
    const event = this.events.find((e) => (e.type === "user/message" || e.type === "assistant/message" || e.type === "tool/result") && e.data.message.id === id)
    if (event === undefined) throw new Error(`no message ${id}`)
    return event.seq
  }
}
