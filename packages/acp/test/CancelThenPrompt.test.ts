/**
 * A client that sends session/cancel and then its next session/prompt without
 * waiting for the cancelled prompt's answer: the cancelled prompt answers
 * `cancelled`, and the new one waits for that turn to close, then runs.
 */
import * as acp from "@agentclientprotocol/sdk"
import { afterEach, describe, expect, it } from "vitest"
import { cleanup, finish, start, text } from "./realLoop.js"

afterEach(cleanup)

const waitFor = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 2))
}

describe("session/cancel followed at once by a new session/prompt", () => {
  it("the new prompt waits for the cancelled turn to close, then runs", async () => {
    const h = start([
      { chunks: [{ type: "block-start", index: 0, blockType: "text" }, { type: "text-delta", index: 0, text: "Once" }], stall: true },
      { chunks: [...text(0, "Short."), finish("stop")] },
    ])
    const updates: Array<unknown> = []
    const [first, second, sessionId] = await acp.client({ name: "test" })
      .onNotification("session/update", ({ params }) => {
        updates.push(params)
      })
      .connectWith(h.connect().client, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
        const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
        const first = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "story" }] })
        await waitFor(() => updates.length > 0)
        await ctx.notify("session/cancel", { sessionId })
        const second = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "short one" }] }).then(
          (r) => r,
          (e: { code: number; message: string }) => ({ code: e.code, message: e.message }),
        )
        return [await first, await second, sessionId] as const
      })
    expect(first).toEqual({ stopReason: "cancelled" })
    expect(second).toEqual({ stopReason: "end_turn" })
    const { events } = await h.log(sessionId)
    expect(events.filter((e) => e.type === "turn/end").map((e) => e.data.reason)).toEqual(["cancelled", "completed"])
  })
})
