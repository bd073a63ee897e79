/**
 * A version-2 state whose stop reason is "error" or "aborted" (never written
 * by this build; another build or a hand-edited log) is not replayed natively:
 * pi-ai would leave such a message out of the request, losing its durable
 * content and sending its tool results with no call before them. It degrades,
 * with one diagnostic, and its text and tool call reach the wire.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Message, makeToolResult, MessageId } from "@turnlog/protocol"
import { harness, MODEL, providerOf, request, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

describe.each(["error", "aborted"] as const)("a stored stop reason of %s", (stopReason) => {
  it("degrades: the message's text and tool call reach the wire ahead of its result", async () => {
    const h = await harness(loopback.server)
    loopback.server.enqueue({ blocks: [{ type: "text", text: "ok" }] })
    const provider = providerOf("anthropic-messages")
    const assistant: Message = {
      id: MessageId.make("a1"),
      role: "assistant",
      content: [
        { type: "text", text: "Listing the files." },
        { type: "tool-call", id: "toolu_01ls", name: "ls", arguments: "{}" },
      ],
      source: {
        kind: "model",
        provider,
        model: MODEL,
        replayState: {
          response: { kind: "pi-ai", version: 2, api: "anthropic-messages", provider, model: MODEL, stopReason },
          blocks: [{ type: "text" }, { type: "tool-call" }],
        },
      },
    }
    const result = makeToolResult({ id: MessageId.make("t1"), callId: "toolu_01ls", content: "a.txt" })
    const before = loopback.server.requests().length
    await h.collect(request("anthropic-messages", [user("u1", "List"), assistant, result]))
    const body = loopback.server.requests()[before]!.body as { messages: Array<{ role: string; content: Array<any> }> }
    expect(body.messages.map((m) => [m.role, m.content.map((c) => c.type)])).toEqual([
      ["user", ["text"]],
      ["assistant", ["text", "tool_use"]],
      ["user", ["tool_result"]],
    ])
    expect((await h.diagnostics()).map((d) => [d.messageId, d.reason])).toEqual([
      ["a1", `response.stopReason "${stopReason}" would leave the message out of the request`],
    ])
  })
})
