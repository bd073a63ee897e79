// The model's plan (`todo` calls) through the real binary and the loopback
// Anthropic wire: under `acp` each call is sent as a `plan` update with its
// exact entries, and loading the session sends the latest plan again after
// the history; `run` shows the plan as a checklist on stderr.
import type * as acp from "@agentclientprotocol/sdk"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { agent } from "./support/acpAgent.js"
import { loopbackHome } from "./support/loopbackHome.js"
import { removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 })
afterAll(removeTempDirs)

const first = [
  { content: "Read the notes", status: "in_progress", priority: "high" },
  { content: "Write the summary", status: "pending", priority: "medium" },
  { content: "Check the links", status: "pending", priority: "low" },
] as const
const second = [
  { content: "Read the notes", status: "completed", priority: "high" },
  { content: "Write the summary", status: "completed", priority: "medium" },
  { content: "Check the links", status: "pending", priority: "low" },
] as const

const todoCall = (id: string, entries: ReadonlyArray<unknown>): Loopback.ReplyInput => ({
  blocks: [{ type: "tool-call", id, name: "todo", arguments: JSON.stringify({ entries }) }],
  finish: "tool-calls",
})

describe("the model's plan", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  it("is sent to the editor as plan updates, again on load, and shown by run as a checklist", async () => {
    const { home, env } = loopbackHome(server, {
      model: "loop/m",
      providers: {
        loop: {
          api: "anthropic-messages",
          models: [{ id: "m", contextWindow: 200000, maxTokens: 8192 }],
        },
      },
    }, "plan")
    const workspace = tempDir("plan-ws")
    server.enqueue(todoCall("toolu_1", first))
    server.enqueue({ blocks: [{ type: "text", text: "Started." }] })
    let sessionId = ""
    const live = await agent(home, workspace, "", async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      sessionId = (await ctx.request("session/new", { cwd: workspace, mcpServers: [] })).sessionId
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Summarise the notes." }] })
    }, { env })
    expect(live.code, live.stderr).toBe(0)
    const shown = (updates: ReadonlyArray<acp.SessionUpdate>) =>
      updates.filter((u) => ["plan", "tool_call", "tool_call_update"].includes(u.sessionUpdate)).map((u) =>
        u.sessionUpdate === "tool_call"
          ? { tool: u.title, kind: u.kind }
          : u.sessionUpdate === "tool_call_update"
          ? { status: u.status, content: u.content ?? null }
          : u
      )
    const checklist = "Plan: 0 of 3 done\n[~] Read the notes (high)\n[ ] Write the summary\n[ ] Check the links"
    expect(shown(live.updates)).toEqual([
      { tool: "Plan: 0 of 3 done", kind: "think" },
      { status: "in_progress", content: null },
      { status: "completed", content: [{ type: "content", content: { type: "text", text: checklist } }] },
      { sessionUpdate: "plan", entries: first },
    ])

    // Loaded by another editor process: the history, then the latest plan.
    const loaded = await agent(home, workspace, "", async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      await ctx.request("session/load", { sessionId, cwd: workspace, mcpServers: [] })
    }, { env })
    expect(loaded.code, loaded.stderr).toBe(0)
    const replayed = loaded.updates.filter((u) => u.sessionUpdate !== "available_commands_update" && u.sessionUpdate !== "session_info_update")
    expect(replayed.at(-1)).toEqual({ sessionUpdate: "plan", entries: first })
    expect(replayed.filter((u) => u.sessionUpdate === "plan")).toHaveLength(1)

    // run shows the plan as a checklist.
    server.enqueue(todoCall("toolu_2", second))
    server.enqueue({ blocks: [{ type: "text", text: "Two done." }] })
    const run = await turnlog(["run", "--session", sessionId, "Go on."], { cwd: workspace, env: { TURNLOG_HOME: home, ...env } })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toContain(
      "turnlog: tool todo done: Plan: 2 of 3 done\n  [x] Read the notes (high)\n  [x] Write the summary\n  [ ] Check the links\n",
    )
  })
})
