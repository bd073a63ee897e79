/**
 * The server over the real agent loop (real store, tools, permissions and
 * assembler; the model scripted), driven by the SDK's client over a pair of
 * in-memory streams.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import * as acp from "@agentclientprotocol/sdk"
import { afterEach, describe, expect, it } from "vitest"
import { cleanup, finish, start, text, toolCall } from "./realLoop.js"

afterEach(cleanup)

const client = <T>(
  stream: acp.Stream,
  op: (ctx: acp.ClientContext, updates: Array<acp.SessionUpdate>) => Promise<T>,
  permission: (request: acp.RequestPermissionRequest) => acp.RequestPermissionResponse = () => ({
    outcome: { outcome: "cancelled" },
  }),
) => {
  const updates: Array<acp.SessionUpdate> = []
  return acp.client({ name: "test" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update)
    })
    .onRequest("session/request_permission", ({ params }) => permission(params))
    .connectWith(stream, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      return op(ctx, updates)
    })
}

describe("over the real loop", () => {
  it("a tool call cut off by the output limit is never shown nor run; the continuation completes", async () => {
    const h = start([
      {
        chunks: [
          ...text(0, "Writing the file."),
          { type: "block-start", index: 1, blockType: "tool-call" },
          { type: "tool-call-delta", index: 1, id: "call_cut", name: "write_file", argumentsDelta: '{"path":"x.txt","co' },
          finish("max-tokens"),
        ],
      },
      { chunks: [...text(0, "Done."), finish("stop")] },
    ])
    const [first, second, updates, id] = await client(h.connect().client, async (ctx, updates) => {
      const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
      const first = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write x.txt" }] })
      const second = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go on" }] })
      return [first, second, [...updates], sessionId] as const
    })
    expect(first).toEqual({ stopReason: "max_tokens" })
    expect(second).toEqual({ stopReason: "end_turn" })
    expect(updates).toEqual([
      { sessionUpdate: "session_info_update", title: "write x.txt" },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Writing the file." } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Done." } },
    ])
    expect(existsSync(join(h.cwd, "x.txt"))).toBe(false)
    const log = await h.log(id)
    expect(log.events.filter((e) => e.type === "tool/call")).toEqual([])
    expect(log.events.filter((e) => e.type === "turn/end").map((e) => e.data)).toEqual([
      { reason: "max-tokens" },
      { reason: "completed" },
    ])
  })

  it("asks the editor before a write: a rejection is a failed tool call the model sees, an allow writes the file", async () => {
    const write = toolCall(0, "call_w1", "write_file", '{"path":"out.txt","content":"hello\\n"}')
    const h = start([
      { chunks: [...write, finish("tool-calls")] },
      { chunks: [...text(0, "Not written."), finish("stop")] },
      { chunks: [...toolCall(0, "call_w2", "write_file", '{"path":"out.txt","content":"hello\\n"}'), finish("tool-calls")] },
      { chunks: [...text(0, "Written."), finish("stop")] },
    ])
    const answers = ["reject-once", "allow-once"]
    const asked: Array<string> = []
    const updates = await client(
      h.connect().client,
      async (ctx, updates) => {
        const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
        await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write" }] })
        expect(existsSync(join(h.cwd, "out.txt"))).toBe(false)
        await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write, really" }] })
        return updates.filter((u) => u.sessionUpdate === "tool_call_update" || u.sessionUpdate === "tool_call")
      },
      (request) => {
        asked.push(`${request.toolCall.toolCallId} ${request.toolCall.title}`)
        return { outcome: { outcome: "selected", optionId: answers.shift()! } }
      },
    )
    expect(asked).toEqual(["call_w1 Write out.txt", "call_w2 Write out.txt"])
    expect(updates.map((u) => [u.sessionUpdate, "status" in u ? u.status : undefined, u.toolCallId])).toEqual([
      ["tool_call", "pending", "call_w1"],
      ["tool_call_update", "failed", "call_w1"],
      ["tool_call", "pending", "call_w2"],
      ["tool_call_update", "in_progress", "call_w2"],
      ["tool_call_update", "completed", "call_w2"],
    ])
    expect(readFileSync(join(h.cwd, "out.txt"), "utf8")).toBe("hello\n")
  })

  it("session/cancel mid-stream answers cancelled, stores the interrupted text, and the session goes on", async () => {
    const h = start([
      { chunks: [{ type: "block-start", index: 0, blockType: "text" }, { type: "text-delta", index: 0, text: "Once upon" }], stall: true },
      { chunks: [...text(0, "Short."), finish("stop")] },
    ])
    const [cancelled, next, id] = await client(h.connect().client, async (ctx, updates) => {
      const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
      const pending = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "story" }] })
      while (updates.length === 0) await new Promise((r) => setTimeout(r, 1))
      await ctx.notify("session/cancel", { sessionId })
      const cancelled = await pending
      const next = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "short one" }] })
      return [cancelled, next, sessionId] as const
    })
    expect(cancelled).toEqual({ stopReason: "cancelled" })
    expect(next).toEqual({ stopReason: "end_turn" })
    const log = await h.log(id)
    const interrupted = log.events.find((e) => e.type === "assistant/message" && e.data.interrupted === true)
    expect(interrupted?.type === "assistant/message" && interrupted.data.message.content).toEqual([
      { type: "text", text: "Once upon" },
    ])
    expect(log.events.filter((e) => e.type === "turn/end").map((e) => e.data.reason)).toEqual(["cancelled", "completed"])
  })

  it("a second connection loads the session and sees its history replayed first", async () => {
    const h = start([{ chunks: [...text(0, "Hi there."), finish("stop")] }])
    const id = await client(h.connect().client, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] })
      return sessionId
    })
    const replayed = await client(h.connect().client, async (ctx, updates) => {
      await ctx.request("session/load", { sessionId: id, cwd: h.cwd, mcpServers: [] })
      return [...updates]
    })
    expect(replayed).toEqual([
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "hello" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hi there." } },
      { sessionUpdate: "session_info_update", title: "hello" },
    ])
  })
})

describe("/compact over the real loop", () => {
  it("is offered with /doctor, summarises the older history with the session's model and answers with the estimates", async () => {
    const long = (label: string) => Array.from({ length: 2_000 }, (_, i) => `${label}${i}`).join(" ")
    const h = start([
      { chunks: [...text(0, "First answer."), finish("stop")] },
      { chunks: [...text(0, "Second answer."), finish("stop")] },
      { chunks: [...text(0, "Third answer."), finish("stop")] },
      { chunks: [...text(0, "The user sent three long texts."), finish("stop")] },
    ], { modelInfo: { contextWindow: 16_384, maxTokens: 4096 }, doctor: () => "report" })
    const [answer, updates, id] = await client(h.connect().client, async (ctx, updates) => {
      const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
      for (const n of [1, 2, 3]) {
        await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: long(`t${n}x`) }] })
      }
      updates.length = 0
      const answer = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/compact" }] })
      return [answer, [...updates], sessionId] as const
    })
    expect(answer).toEqual({ stopReason: "end_turn" })
    const log = await h.log(id)
    const compactions = log.events.filter((e) => e.type === "context/compaction")
    expect(compactions).toHaveLength(1)
    const data = compactions[0]!.data as { summary: string; tokensBefore: number; tokensAfter: number }
    expect(data.summary).toBe("The user sent three long texts.")
    expect(updates).toEqual([{
      sessionUpdate: "agent_message_chunk",
      content: {
        type: "text",
        text: `Compacted: the next request is about ${data.tokensAfter} tokens (about ${data.tokensBefore} before). The older history stays in the log.`,
      },
    }])
    expect(data.tokensAfter).toBeLessThan(data.tokensBefore)
    // No turn was written for the command: three turns, then the compaction between turns.
    expect(log.events.filter((e) => e.type === "turn/start")).toHaveLength(3)
  })
})
