// Event fixtures shared by the store tests: one of every event type, with the
// awkward values a durable log must keep exactly (nested replay state, unicode,
// omitted optional fields).
import { ForeignFailureCode, makeToolResult, MessageId, SessionLog } from "@turnlog/protocol"

export const TIME = "2025-01-02T03:04:05.678Z"

/** Replay state as a provider adapter stores it: arbitrary JSON, key order and all. */
export const replayState = {
  response: {
    kind: "pi-ai",
    version: 2,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-x",
    responseId: "msg_01\u2028é😀",
    stopReason: "toolUse",
    zeta: [1, 2.5, 1e-7, 1e21, null, true, { b: 1, a: 2 }, "\u0000</script>"],
  },
  blocks: [{ type: "reasoning", thinkingSignature: "c2lnbmF0dXJl" }, { type: "text" }, { type: "tool-call" }],
}

export const userMessage = (text: string, id = "msg_user"): SessionLog.EventInput => ({
  type: "user/message",
  data: { message: { id: MessageId.make(id), role: "user", content: [{ type: "text", text }], source: { kind: "user" } } },
})

export const assistantWithCalls = (callIds: ReadonlyArray<string>): SessionLog.EventInput => ({
  type: "assistant/message",
  data: {
    message: {
      id: MessageId.make("msg_assistant_calls"),
      role: "assistant",
      content: callIds.map((id) => ({ type: "tool-call" as const, id, name: "bash", arguments: `{"cmd":"ls ${id}"}` })),
      source: { kind: "model", provider: "anthropic", model: "claude-x" },
    },
    finish: { kind: "tool-calls" },
  },
})

export const toolCall = (callId: string): SessionLog.EventInput => ({
  type: "tool/call",
  data: { callId, name: "bash", arguments: `{"cmd":"ls ${callId}"}` },
})

export const toolResult = (callId: string): SessionLog.EventInput => ({
  type: "tool/result",
  data: { message: makeToolResult({ id: MessageId.make(`msg_result_${callId}`), callId, content: "a\nb" }) },
})

/** One complete turn holding every event type. */
export const everyType: ReadonlyArray<SessionLog.EventInput> = [
  { type: "turn/start", data: {} },
  userMessage("List the files, please"),
  { type: "request/start", data: { provider: "anthropic", model: "claude-x", step: 1, attempt: 1 } },
  { type: "request/start", data: { provider: "anthropic", model: "claude-x" } },
  { type: "assistant/chunk", data: { chunk: { type: "block-start", index: 0, blockType: "reasoning" } } },
  { type: "assistant/chunk", data: { chunk: { type: "reasoning-delta", index: 0, text: "thinking…" } } },
  { type: "assistant/chunk", data: { chunk: { type: "tool-call-delta", index: 2, id: "call_1", argumentsDelta: '{"cm' } } },
  {
    type: "assistant/chunk",
    data: { chunk: { type: "usage", usage: { inputTokens: 10, outputTokens: 20, cacheReadTokens: 3 } } },
  },
  { type: "assistant/chunk", data: { chunk: { type: "finish", reason: { kind: "tool-calls" }, replayState } } },
  {
    type: "assistant/message",
    data: {
      message: {
        id: MessageId.make("msg_a1"),
        role: "assistant",
        content: [
          { type: "reasoning", text: "thinking…" },
          { type: "text", text: "Let me look." },
          { type: "tool-call", id: "call_1", name: "bash", arguments: '{"cmd":"ls"}' },
        ],
        source: { kind: "model", provider: "anthropic", model: "claude-x", replayState },
      },
      finish: { kind: "tool-calls" },
      usage: { inputTokens: 10, outputTokens: 20 },
    },
  },
  toolCall("call_1"),
  {
    type: "tool/result",
    data: {
      message: makeToolResult({ id: MessageId.make("msg_r1"), callId: "call_1", content: "a.txt", isError: true }),
      code: "EXIT_1",
    },
  },
  {
    type: "assistant/message",
    data: {
      message: {
        id: MessageId.make("msg_a2"),
        role: "assistant",
        content: [{ type: "text", text: "cut" }],
        source: { kind: "model", provider: "openai", model: "gpt-x" },
      },
      finish: { kind: "error", failure: { message: "overloaded", code: ForeignFailureCode.make("OVERLOADED"), status: 529, retryAfterMs: 10 } },
      interrupted: true,
    },
  },
  { type: "turn/end", data: { reason: "error", failure: { message: "overloaded", code: ForeignFailureCode.make("OVERLOADED") } } },
]

export const stamped = (from: number, inputs: ReadonlyArray<SessionLog.EventInput>) => SessionLog.stamp(from, inputs, TIME)

/** A streamed text chunk of about `size` bytes on the wire. */
export const chunkEvent = (seq: number, size = 40): SessionLog.SessionEvent => ({
  seq,
  time: TIME,
  type: "assistant/chunk",
  data: { chunk: { type: "text-delta", index: 0, text: `${seq} `.padEnd(size, "x") } },
})

/** A turn from seq `from` whose one step streamed `chunks` raw chunks, completed: `chunks + 4` events. */
export const streamedTurn = (from: number, text: string, chunks: number): Array<SessionLog.SessionEvent> => [
  ...inFlightTurn(from, text, chunks),
  ...stamped(from + 3 + chunks, [{ type: "turn/end", data: { reason: "completed" } }]),
]

/** A turn from seq `from` whose step is still streaming (`chunks` raw chunks so far): `chunks + 3` events. */
export const inFlightTurn = (from: number, text: string, chunks: number): Array<SessionLog.SessionEvent> => [
  ...stamped(from, [{ type: "turn/start", data: {} }, userMessage(text), { type: "request/start", data: { provider: "p", model: "m" } }]),
  ...Array.from({ length: chunks }, (_, i) => chunkEvent(from + 3 + i)),
]
