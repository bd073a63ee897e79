// The config file's `mcpServers` under `turnlog acp`, through the real binary:
// started for a session beside the editor's, names de-duplicated with the
// editor's server winning; a config server's tool serves the session.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type * as acp from "@agentclientprotocol/sdk"
import { Processes } from "@turnlog/testkit"
import { afterAll, describe, expect, it, vi } from "vitest"
import { agent } from "./support/acpAgent.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000 })
afterAll(removeTempDirs)

const EVERYTHING = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
)

const everything = (name: string, marker: string): acp.McpServer => ({
  name,
  command: process.execPath,
  args: [EVERYTHING, "stdio", marker],
  env: [],
})

const call = (id: string, name: string, args: string) =>
  JSON.stringify([
    { type: "block-start", index: 0, blockType: "tool-call" },
    { type: "tool-call-delta", index: 0, id, name, argumentsDelta: args },
    { type: "block-end", index: 0, block: { type: "tool-call", id, name, arguments: args } },
    { type: "finish", reason: { kind: "tool-calls" } },
  ])
const answer = (text: string) =>
  JSON.stringify([
    { type: "block-start", index: 0, blockType: "text" },
    { type: "text-delta", index: 0, text },
    { type: "block-end", index: 0, block: { type: "text", text } },
    { type: "finish", reason: { kind: "stop" } },
  ])

describe("the config's mcpServers under acp", () => {
  it("start with the editor's, the editor's server winning a shared name, and their tools serve the session", async () => {
    const home = tempDir("acp-config-mcp")
    const workspace = tempDir("acp-config-mcp-ws")
    const tag = `${process.pid}-${Date.now()}`
    const shadowed = `turnlog-cfg-shadowed-${tag}`
    const extra = `turnlog-cfg-extra-${tag}`
    const editors = `turnlog-cfg-editors-${tag}`
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        permissions: "allow",
        mcpServers: [everything("everything", shadowed), everything("extra", extra)],
      }),
    )
    const modelFile = join(home, "model.jsonl")
    writeFileSync(modelFile, [call("call_1", "extra__echo", `{"message":"from the config"}`), answer("Echoed.")].join("\n") + "\n")
    let running: Record<string, number> = {}
    const run = await agent(home, workspace, modelFile, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      const { sessionId } = await ctx.request("session/new", { cwd: workspace, mcpServers: [everything("everything", editors)] })
      running = {
        shadowed: Processes.programsWith(shadowed).length,
        extra: Processes.programsWith(extra).length,
        editors: Processes.programsWith(editors).length,
      }
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Echo." }] })
    })
    expect(run.code, run.stderr).toBe(0)
    expect(running).toEqual({ shadowed: 0, extra: 1, editors: 1 })
    const results = run.updates.flatMap((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed" ? [u.content] : [])
    expect(results).toEqual([[{ type: "content", content: { type: "text", text: "Echo: from the config" } }]])
    expect(await Processes.gone(extra)).toEqual([])
    expect(await Processes.gone(editors)).toEqual([])
  })
})
