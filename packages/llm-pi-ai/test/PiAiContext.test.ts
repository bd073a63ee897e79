import { describe, expect, it } from "@effect/vitest"
import { makeToolResult, type Message, MessageId } from "@turnlog/protocol"
import { PiAiContext, PiAiReplay } from "@turnlog/llm-pi-ai"
import { assistantMessage, userMessage } from "./fixtures.js"

describe("PiAiContext.toContext", () => {
  const calls = assistantMessage("a1", [
    { type: "text", text: "Looking." },
    { type: "tool-call", id: "call_1", name: "read", arguments: '{"path":"a"}' },
    { type: "tool-call", id: "call_2", name: "ls", arguments: "{}" },
  ])
  const messages: ReadonlyArray<Message> = [
    userMessage("u1", "what is in a?"),
    calls,
    makeToolResult({ id: MessageId.make("t1"), callId: "call_1", content: "hello" }),
    makeToolResult({ id: MessageId.make("t2"), callId: "call_2", content: "", isError: true }),
    makeToolResult({ id: MessageId.make("t3"), callId: "call_gone", content: "late" }),
  ]
  const native = PiAiReplay.foreign(calls)

  it("system prompt, user text, the reconstructed assistant message in place, tool results named by their call", () => {
    const context = PiAiContext.toContext(
      {
        provider: "acme",
        model: "m1",
        system: "Be brief.",
        messages,
        tools: [{ name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }],
      },
      [native],
    )
    expect(context).toStrictEqual({
      systemPrompt: "Be brief.",
      tools: [{ name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "what is in a?" }], timestamp: 0 },
        native,
        { role: "toolResult", toolCallId: "call_1", toolName: "read", content: [{ type: "text", text: "hello" }], isError: false, timestamp: 0 },
        { role: "toolResult", toolCallId: "call_2", toolName: "ls", content: [{ type: "text", text: "(no output)" }], isError: true, timestamp: 0 },
        { role: "toolResult", toolCallId: "call_gone", toolName: "unknown", content: [{ type: "text", text: "late" }], isError: false, timestamp: 0 },
      ],
    })
  })

  it("no system prompt or tools when the request has none", () => {
    const context = PiAiContext.toContext({ provider: "acme", model: "m1", messages: [userMessage("u", "hi")] }, [])
    expect(Object.keys(context)).toEqual(["messages"])
  })
})
