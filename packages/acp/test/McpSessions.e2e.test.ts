/**
 * The MCP servers an editor names in session/new and session/load, over the
 * real loop: their tools serve the session, and their processes belong to it —
 * replaced when the session is loaded with other servers, stopped when the
 * connection ends.
 */
import { fileURLToPath } from "node:url"
import * as acp from "@agentclientprotocol/sdk"
import { Processes } from "@turnlog/testkit"
import { afterEach, describe, expect, it } from "vitest"
import { cleanup, finish, start, text, toolCall } from "./realLoop.js"

afterEach(cleanup)

const EVERYTHING = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
)

/** server-everything, with `marker` on its command line so the test can find its process. */
const everything = (marker: string): acp.McpServer => ({
  name: "everything",
  command: process.execPath,
  args: [EVERYTHING, "stdio", marker],
  env: [],
})

describe("an editor's MCP servers", () => {
  it("serve the session; loading it with other servers stops the old ones; the connection's end stops the rest", async () => {
    const h = start([
      { chunks: [...toolCall(0, "call_1", "everything__echo", `{"message":"one"}`), finish("tool-calls")] },
      { chunks: [...text(0, "ok"), finish("stop")] },
      { chunks: [...toolCall(0, "call_2", "everything__echo", `{"message":"two"}`), finish("tool-calls")] },
      { chunks: [...text(0, "ok"), finish("stop")] },
    ], { mcp: true })
    const first = `turnlog-acp-mcp-a-${process.pid}-${Date.now()}`
    const second = `turnlog-acp-mcp-b-${process.pid}-${Date.now()}`
    const wire = h.connect()
    const results: Array<unknown> = []
    let running: Record<string, number> = {}
    await acp.client({ name: "test" })
      .onNotification("session/update", ({ params }) => {
        const u = params.update
        if (u.sessionUpdate === "tool_call_update" && u.status !== "in_progress") results.push(u.content)
      })
      .connectWith(wire.client, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
        const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [everything(first)] })
        await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo one" }] })
        running = { beforeLoad: Processes.programsWith(first).length }
        await ctx.request("session/load", { sessionId, cwd: h.cwd, mcpServers: [everything(second)] })
        running = { ...running, firstAfterLoad: (await Processes.gone(first)).length, second: Processes.programsWith(second).length }
        await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo two" }] })
        const refused = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [everything("x"), everything("y")] })
          .then(() => "answered", (e: unknown) => (e as { message?: string }).message)
        results.push(refused)
      })
    await wire.closeInput()
    expect(running).toEqual({ beforeLoad: 1, firstAfterLoad: 0, second: 1 })
    expect(results).toEqual([
      [{ type: "content", content: { type: "text", text: "Echo: one" } }],
      [{ type: "content", content: { type: "text", text: "Echo: two" } }],
      `Invalid params: mcpServers: two MCP servers are named "everything"`,
    ])
    expect(await Processes.gone(second)).toEqual([])
  })
})
