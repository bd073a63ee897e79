// A durable request as the AI SDK prompt: roles, order, tool results, and metadata only for the route that minted it.
import { describe, expect, it } from "@effect/vitest"
import { type Message, MessageId } from "@turnlog/protocol"
import { AiSdkPrompt, type AiSdkReplay } from "@turnlog/llm-ai-sdk"

const target = { provider: "acme", model: "m1", sdkProvider: "anthropic.messages" }
const signed: AiSdkReplay.NativeAssistant = {
  route: target,
  parts: [
    { type: "reasoning", text: "Think.", providerOptions: { anthropic: { signature: "sig" } } },
    { type: "text", text: "\n\n" },
    { type: "tool-call", toolCallId: "call_1", toolName: "read_file", input: { path: "a" } },
  ],
}
const messages: ReadonlyArray<Message> = [
  { id: MessageId.make("s1"), role: "system", content: [{ type: "text", text: "Summary so far." }], source: { kind: "system" } },
  { id: MessageId.make("u1"), role: "user", content: [{ type: "text", text: "Read a" }], source: { kind: "user" } },
  {
    id: MessageId.make("a1"),
    role: "assistant",
    content: [{ type: "reasoning", text: "Think." }, { type: "text", text: "\n\n" }, {
      type: "tool-call",
      id: "call_1",
      name: "read_file",
      arguments: '{"path":"a"}',
    }],
    source: { kind: "model", provider: "acme", model: "m1" },
  },
  {
    id: MessageId.make("t1"),
    role: "user",
    content: [{ type: "tool-result", toolCallId: "call_1", content: "" }, { type: "text", text: "and then?" }],
    source: { kind: "user" },
  },
]

describe("AiSdkPrompt.toPrompt", () => {
  it("system first, tool results as a tool message named by their call, blank text left out, metadata for its own route", () => {
    expect(AiSdkPrompt.toPrompt({ provider: "acme", model: "m1", system: "Be brief.", messages }, [signed], target)).toEqual([
      { role: "system", content: "Be brief." },
      { role: "system", content: "Summary so far." },
      { role: "user", content: [{ type: "text", text: "Read a" }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "Think.", providerOptions: { anthropic: { signature: "sig" } } },
          { type: "tool-call", toolCallId: "call_1", toolName: "read_file", input: { path: "a" } },
        ],
      },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", toolName: "read_file", output: { type: "text", value: "(no output)" } }] },
      { role: "user", content: [{ type: "text", text: "and then?" }] },
    ])
  })

  it("another model of the same kind gets the text and tool calls without metadata or reasoning", () => {
    const other = { ...target, model: "m2" }
    expect(AiSdkPrompt.toPrompt({ provider: "acme", model: "m2", messages: messages.slice(1, 3) }, [signed], other)[1]).toEqual({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "call_1", toolName: "read_file", input: { path: "a" } }],
    })
  })
})
