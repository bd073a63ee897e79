/**
 * After each turn the editor hears how full the context is (`usage_update`):
 * the latest answer's request and answer in tokens against the model's window,
 * and the session's cost so far where the model has prices.
 */
import * as acp from "@agentclientprotocol/sdk"
import { afterEach, describe, expect, it } from "vitest"
import type { StreamChunk } from "@turnlog/protocol"
import { cleanup, finish, start, text } from "./realLoop.js"

afterEach(cleanup)

const usage = (inputTokens: number, outputTokens: number, cacheReadTokens?: number): StreamChunk => ({
  type: "usage",
  usage: { inputTokens, outputTokens, ...(cacheReadTokens === undefined ? {} : { cacheReadTokens }) },
})

describe("usage_update", () => {
  it("after each turn: context used against the window, and the cumulative cost at the model's prices", async () => {
    const h = start([
      { chunks: [...text(0, "One."), usage(1_000, 200), finish("stop")] },
      { chunks: [...text(0, "Two."), usage(1_500, 100, 1_000), finish("stop")] },
    ], {
      modelInfo: {
        contextWindow: 200_000,
        maxTokens: 8_000,
        cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      },
    })
    const updates: Array<acp.SessionUpdate> = []
    await acp.client({ name: "test" })
      .onNotification("session/update", ({ params }) => {
        updates.push(params.update)
      })
      .connectWith(h.connect().client, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
        const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
        await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] })
        await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "two" }] })
      })
    const sent = updates.filter((u) => u.sessionUpdate === "usage_update")
    // 1,000 × $3 + 200 × $15 per million; then 1,500 × $3 + 100 × $15 + 1,000 × $0.30 per million, added.
    expect(sent).toEqual([
      { sessionUpdate: "usage_update", used: 1_200, size: 200_000, cost: { amount: 0.006, currency: "USD" } },
      { sessionUpdate: "usage_update", used: 2_600, size: 200_000, cost: { amount: expect.closeTo(0.0123, 10), currency: "USD" } },
    ])
    // Each is sent after the turn's own updates.
    expect(updates.map((u) => u.sessionUpdate).filter((t) => t !== "session_info_update")).toEqual([
      "agent_message_chunk",
      "usage_update",
      "agent_message_chunk",
      "usage_update",
    ])
  })

  it("without prices: the window and the tokens, no cost; without a known window: none at all", async () => {
    const priced = start([{ chunks: [...text(0, "One."), usage(10, 5), finish("stop")] }], {
      modelInfo: { contextWindow: 1_000, maxTokens: 100 },
    })
    const bare = start([{ chunks: [...text(0, "One."), usage(10, 5), finish("stop")] }])
    const run = async (h: ReturnType<typeof start>) => {
      const updates: Array<acp.SessionUpdate> = []
      await acp.client({ name: "test" })
        .onNotification("session/update", ({ params }) => {
          updates.push(params.update)
        })
        .connectWith(h.connect().client, async (ctx) => {
          await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
          const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
          await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] })
        })
      return updates.filter((u) => u.sessionUpdate === "usage_update")
    }
    expect(await run(priced)).toEqual([{ sessionUpdate: "usage_update", used: 15, size: 1_000 }])
    expect(await run(bare)).toEqual([])
  })
})
