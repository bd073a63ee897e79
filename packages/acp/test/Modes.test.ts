/**
 * Session modes over ACP, on the real loop: advertised by session/new and
 * session/load, switched by session/set_mode (told back as current_mode_update),
 * applied to tool calls without asking the editor, and restored on reload.
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
  asked: Array<string> = [],
) => {
  const updates: Array<acp.SessionUpdate> = []
  return acp.client({ name: "test" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update)
    })
    .onRequest("session/request_permission", ({ params }) => {
      asked.push(params.toolCall.title ?? "")
      return { outcome: { outcome: "selected", optionId: "allow-once" } }
    })
    .connectWith(stream, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      return op(ctx, updates)
    })
}

const available = [
  { id: "ask", name: "Ask", description: "Asks before every file write and command" },
  { id: "read-only", name: "Read-only (plan)", description: "Reads only: no writes, no commands; the model answers with a plan" },
  { id: "auto-edit", name: "Auto-edit", description: "Writes and edits files without asking; asks before commands" },
  { id: "full-access", name: "Full access", description: "Writes files and runs commands without asking" },
]

const writeAndRun = (n: number) => [
  ...toolCall(0, `call_w${n}`, "write_file", '{"path":"out.txt","content":"hello\\n"}'),
  ...toolCall(1, `call_r${n}`, "run_command", '{"command":"echo hi"}'),
  finish("tool-calls"),
]

describe("session modes over ACP", () => {
  it("advertised, switched, applied without asking, and restored by session/load", async () => {
    const h = start([
      { chunks: writeAndRun(1) },
      { chunks: [...text(0, "Planned."), finish("stop")] },
      { chunks: writeAndRun(2) },
      { chunks: [...text(0, "Written."), finish("stop")] },
    ])
    const asked: Array<string> = []
    const [created, id, modeUpdates, results] = await client(h.connect().client, async (ctx, updates) => {
      const created = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
      const sessionId = created.sessionId
      expect(await ctx.request("session/set_mode", { sessionId, modeId: "read-only" })).toEqual({})
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "plan it" }] })
      expect(existsSync(join(h.cwd, "out.txt"))).toBe(false)
      await ctx.request("session/set_mode", { sessionId, modeId: "auto-edit" })
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "do it" }] })
      const results = updates.flatMap((u) => u.sessionUpdate === "tool_call_update" && u.status !== "in_progress" ? [`${u.toolCallId} ${u.status}`] : [])
      return [created, sessionId, updates.filter((u) => u.sessionUpdate === "current_mode_update"), results] as const
    }, asked)
    expect(created.modes).toEqual({ currentModeId: "ask", availableModes: available })
    expect(modeUpdates).toEqual([
      { sessionUpdate: "current_mode_update", currentModeId: "read-only" },
      { sessionUpdate: "current_mode_update", currentModeId: "auto-edit" },
    ])
    // Read-only refused both calls without asking; auto-edit wrote without asking and asked before the command.
    expect(asked).toEqual(["Run echo hi"])
    expect(results).toEqual(["call_w1 failed", "call_r1 failed", "call_w2 completed", "call_r2 completed"])
    expect(readFileSync(join(h.cwd, "out.txt"), "utf8")).toBe("hello\n")
    const log = await h.log(id)
    expect(log.events.flatMap((e) => (e.type === "session/mode" ? [e.data.mode] : []))).toEqual(["read-only", "auto-edit"])

    const loaded = await client(h.connect().client, (ctx) => ctx.request("session/load", { sessionId: id, cwd: h.cwd, mcpServers: [] }))
    expect(loaded.modes).toEqual({ currentModeId: "auto-edit", availableModes: available })
  })

  it("the model proposes to leave read-only mode: the editor is asked, and once allowed told the new mode", async () => {
    const h = start([
      { chunks: [...toolCall(0, "call_exit", "exit_plan_mode", '{"plan":"Write out.txt."}'), finish("tool-calls")] },
      { chunks: [...text(0, "Leaving plan mode."), finish("stop")] },
    ])
    const asked: Array<string> = []
    const [sessionId, updates] = await client(h.connect().client, async (ctx, updates) => {
      const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
      await ctx.request("session/set_mode", { sessionId, modeId: "read-only" })
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "plan" }] })
      return [sessionId, [...updates]] as const
    }, asked)
    expect(asked).toEqual(["Leave read-only mode and carry out the plan"])
    expect(
      updates.filter((u) => u.sessionUpdate === "current_mode_update" || u.sessionUpdate === "tool_call").map((u) =>
        u.sessionUpdate === "tool_call" ? `${u.sessionUpdate} ${u.kind}` : `${u.sessionUpdate} ${"currentModeId" in u ? u.currentModeId : ""}`
      ),
    ).toEqual([
      "current_mode_update read-only",
      "tool_call switch_mode",
      "current_mode_update ask",
    ])
    const loaded = await client(h.connect().client, (ctx) => ctx.request("session/load", { sessionId, cwd: h.cwd, mcpServers: [] }))
    expect(loaded.modes?.currentModeId).toBe("ask")
  })

  it("refuses a mode it does not offer, naming the ones it does", async () => {
    const h = start([])
    const error = await client(h.connect().client, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
      return ctx.request("session/set_mode", { sessionId, modeId: "yolo" }).then(() => undefined, (e: unknown) => e)
    })
    expect(error).toMatchObject({
      code: -32602,
      message: 'Invalid params: mode "yolo" is not one offered (ask, read-only, auto-edit, full-access)',
    })
  })
})
