/**
 * Edits shown as diffs, on the real loop: `write_file` and `edit_file` calls
 * carry `diff` content (absolute path, old and new text) on the tool call, in
 * the permission request, on the finished update beside the result, and the
 * same on session/load replay.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as acp from "@agentclientprotocol/sdk"
import { afterEach, describe, expect, it } from "vitest"
import { cleanup, finish, start, text, toolCall } from "./realLoop.js"

afterEach(cleanup)

const client = <T>(
  stream: acp.Stream,
  op: (ctx: acp.ClientContext, updates: Array<acp.SessionUpdate>) => Promise<T>,
  asked: Array<acp.RequestPermissionRequest> = [],
) => {
  const updates: Array<acp.SessionUpdate> = []
  return acp.client({ name: "test" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update)
    })
    .onRequest("session/request_permission", ({ params }) => {
      asked.push(params)
      return { outcome: { outcome: "selected", optionId: "allow-once" } }
    })
    .connectWith(stream, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      return op(ctx, updates)
    })
}

const contentOf = (updates: ReadonlyArray<acp.SessionUpdate>) =>
  updates.flatMap((u) =>
    (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.content != null
      ? [{ update: u.sessionUpdate, status: u.status, content: u.content }]
      : []
  )

describe("edits as diffs", () => {
  it("write_file and edit_file show their change as diff content, live and on replay", async () => {
    const h = start([
      {
        chunks: [
          ...toolCall(0, "call_w", "write_file", '{"path":"new.txt","content":"one\\n"}'),
          ...toolCall(1, "call_e", "edit_file", '{"path":"old.txt","old_text":"b = 1","new_text":"b = 2"}'),
          finish("tool-calls"),
        ],
      },
      { chunks: [...text(0, "Done."), finish("stop")] },
    ])
    writeFileSync(join(h.cwd, "old.txt"), "a = 0\nb = 1\n")
    const asked: Array<acp.RequestPermissionRequest> = []
    const [id, live] = await client(h.connect().client, async (ctx, updates) => {
      const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit" }] })
      return [sessionId, contentOf(updates)] as const
    }, asked)
    expect(readFileSync(join(h.cwd, "old.txt"), "utf8")).toBe("a = 0\nb = 2\n")
    const write = { type: "diff", path: join(h.cwd, "new.txt"), newText: "one\n" }
    const edit = { type: "diff", path: join(h.cwd, "old.txt"), oldText: "b = 1", newText: "b = 2" }
    expect(live).toEqual([
      { update: "tool_call", status: "pending", content: [write] },
      { update: "tool_call_update", status: "completed", content: [write, { type: "content", content: { type: "text", text: "wrote 4 bytes to new.txt" } }] },
      { update: "tool_call", status: "pending", content: [edit] },
      {
        update: "tool_call_update",
        status: "completed",
        content: [edit, { type: "content", content: { type: "text", text: expect.stringContaining("-b = 1\n+b = 2") } }],
      },
    ])
    expect(asked.map((a) => a.toolCall.content)).toEqual([[write], [edit]])

    const replayed = await client(h.connect().client, async (ctx, updates) => {
      await ctx.request("session/load", { sessionId: id, cwd: h.cwd, mcpServers: [] })
      return contentOf(updates)
    })
    expect(replayed).toEqual([
      { update: "tool_call", status: "completed", content: live[1]!.content },
      { update: "tool_call", status: "completed", content: live[3]!.content },
    ])
  })
})
