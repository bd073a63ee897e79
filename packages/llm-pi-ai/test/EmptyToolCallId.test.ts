/**
 * A tool call streamed without an id (some OpenAI- and Anthropic-compatible
 * servers send "") is stored as `call-<index>-<reply tag>`: apart from the
 * other calls of its reply and from those of every other reply, so that a
 * session's replayed tool call ids never repeat — Anthropic refuses a request
 * whose `tool_use` ids do ("ids must be unique"), on every later request.
 */
import { describe, expect, it } from "@effect/vitest"
import { makeToolResult, MessageId } from "@turnlog/protocol"
import { request, stored, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

const FALLBACK = /^call-(\d+)-[0-9a-f]{8}$/

describe.each(["openai-completions", "anthropic-messages"] as const)("%s: tool calls without an id", (api) => {
  it("get non-empty ids, distinct within a reply and across replies", async () => {
    const pair = {
      blocks: [
        { type: "tool-call", id: "", name: "ls", arguments: "{}" },
        { type: "tool-call", id: "", name: "pwd", arguments: "{}" },
      ],
      finish: "tool-calls",
    } as const
    loopback.server.enqueue(pair, pair)
    const idsOf = async (id: string) => {
      const chunks = await loopback.h.collect(request(api, [user("u1", "Hi")]))
      return stored(id, api, chunks).assembled.blocks.map((b) => (b.type === "tool-call" ? b.id : ""))
    }
    const first = await idsOf("a1")
    const second = await idsOf("a2")
    expect([...first, ...second].map((id) => FALLBACK.exec(id)?.[1])).toEqual(["0", "1", "0", "1"])
    expect(new Set([...first, ...second]).size).toBe(4)
  })
})

describe.each(["openai-completions", "anthropic-messages"] as const)("id-less tool calls streamed on %s", (source) => {
  it("replay to anthropic-messages with distinct tool_use ids, each answered by its own result", async () => {
    loopback.server.enqueue(
      { blocks: [{ type: "tool-call", id: "", name: "ls", arguments: "{}" }], finish: "tool-calls" },
      { blocks: [{ type: "tool-call", id: "", name: "pwd", arguments: "{}" }], finish: "tool-calls" },
      { blocks: [{ type: "text", text: "done" }] },
    )
    const h = loopback.h
    const u1 = user("u1", "Where am I?")
    const first = stored("a1", source, await h.collect(request(source, [u1]))).message
    const callId = (m: typeof first) => (m.content[0]!.type === "tool-call" ? m.content[0]!.id : "")
    const t1 = makeToolResult({ id: MessageId.make("t1"), callId: callId(first), content: "a.txt" })
    const second = stored("a2", source, await h.collect(request(source, [u1, first, t1]))).message
    const t2 = makeToolResult({ id: MessageId.make("t2"), callId: callId(second), content: "/tmp" })
    const before = loopback.server.requests().length
    await h.collect(request("anthropic-messages", [u1, first, t1, second, t2]))
    const body = loopback.server.requests()[before]!.body as { messages: Array<{ content: unknown }> }
    const blocks = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])) as Array<
      { type: string; id?: string; tool_use_id?: string }
    >
    const uses = blocks.filter((b) => b.type === "tool_use").map((b) => b.id)
    const answers = blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id)
    expect(uses).toHaveLength(2)
    expect(new Set(uses).size).toBe(2)
    expect(answers).toEqual(uses)
  })
})
