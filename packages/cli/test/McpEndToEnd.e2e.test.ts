/**
 * MCP servers through the real `turnlog` binary: an editor (the ACP SDK's
 * client) names servers in session/new, and the config's mcpServers serve
 * `turnlog run`. A scripted model calls a server's tool; the result reaches
 * the log and the client, a server that cannot start is told in one
 * sentence, and no server process outlives the agent.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type * as acp from "@agentclientprotocol/sdk"
import { Processes } from "@turnlog/testkit"
import { afterAll, describe, expect, it, vi } from "vitest"
import { agent } from "./support/acpAgent.js"
import { logLines, removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 240_000 })
afterAll(removeTempDirs)

const MODULES = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/", import.meta.url))
const EVERYTHING = `${MODULES}server-everything/dist/index.js`
const FILESYSTEM = `${MODULES}server-filesystem/dist/index.js`

const finish = (kind: string) => ({ type: "finish", reason: { kind } })
/** One scripted reply that calls `name` with `args`, then one that answers `text`. */
const script = (name: string, args: object, text: string) =>
  [
    [
      { type: "block-start", index: 0, blockType: "tool-call" },
      { type: "tool-call-delta", index: 0, id: "call_1", name, argumentsDelta: JSON.stringify(args) },
      { type: "block-end", index: 0, block: { type: "tool-call", id: "call_1", name, arguments: JSON.stringify(args) } },
      finish("tool-calls"),
    ],
    [
      { type: "block-start", index: 0, blockType: "text" },
      { type: "text-delta", index: 0, text },
      { type: "block-end", index: 0, block: { type: "text", text } },
      finish("stop"),
    ],
  ].map((chunks) => JSON.stringify(chunks)).join("\n") + "\n"

/** The session's events as a store reads them (a version-4 line may refer to what its request streamed). */
const events = (home: string, sessionId: string) => logLines(home, sessionId).slice(1) as Array<{ type: string; data: Record<string, unknown> }>

describe("MCP servers end to end", () => {
  it("acp: session/new's servers give their tools to the model; the call and its result reach the log and the client; a server that cannot start is said once; none outlives the agent", async () => {
    const home = tempDir("mcp-home")
    const workspace = tempDir("mcp-ws")
    const modelFile = join(home, "model.jsonl")
    writeFileSync(modelFile, script("everything__echo", { message: "from the model" }, "The server echoed."))
    const marker = `turnlog-mcp-e2e-${process.pid}-${Date.now()}`
    let sessionId = ""
    let capabilities: unknown
    let answer: unknown
    let serversWhileOpen: Array<number> = []
    const first = await agent(home, workspace, modelFile, async (ctx) => {
      const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      capabilities = init.agentCapabilities?.mcpCapabilities
      const created = await ctx.request("session/new", {
        cwd: workspace,
        mcpServers: [
          { name: "everything", command: process.execPath, args: [EVERYTHING, "stdio", marker], env: [] },
          { name: "broken", command: join(workspace, "no-such-server"), args: [], env: [] },
        ],
      })
      sessionId = created.sessionId
      // The server itself (in the sandbox it is started through bwrap, whose processes carry the marker too).
      serversWhileOpen = Processes.programsWith(marker)
      answer = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo something" }] })
    })
    const { updates, stderr } = first
    expect(first.code).toBe(0)
    expect(capabilities).toEqual({ http: true, sse: true })
    expect(answer).toMatchObject({ stopReason: "end_turn" })
    expect(serversWhileOpen).toHaveLength(1)
    expect(Processes.processesWith(marker)).toEqual([])

    const broken = `MCP server "broken" could not be started: spawn ${join(workspace, "no-such-server")} ENOENT; its tools are not available in this session`
    expect(stderr).toContain(`turnlog: ${broken}\n`)
    const texts = updates.flatMap((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [])
    expect(texts).toEqual([`${broken}.\n\n`, "The server echoed."])
    const call = updates.find((u) => u.sessionUpdate === "tool_call")
    expect(call).toMatchObject({ sessionUpdate: "tool_call", rawInput: { message: "from the model" } })
    const done = updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed")
    expect(done).toHaveLength(1)
    expect(done[0]).toMatchObject({ content: [{ type: "content", content: { type: "text", text: "Echo: from the model" } }] })

    const logged = events(home, sessionId).filter((e) => e.type.startsWith("tool/"))
    expect(logged.map((e) => e.type)).toEqual(["tool/call", "tool/result"])
    expect(logged[0]!.data).toEqual({ callId: "call_1", name: "everything__echo", arguments: `{"message":"from the model"}` })
    expect((logged[1]!.data.message as { content: unknown }).content).toEqual([
      { type: "tool-result", toolCallId: "call_1", content: "Echo: from the model" },
    ])

    // A new client process loads the session: the MCP call replays from the log like any tool call.
    const reloaded = await agent(home, workspace, modelFile, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      await ctx.request("session/load", { sessionId, cwd: workspace, mcpServers: [] })
    })
    expect(reloaded.code).toBe(0)
    expect(reloaded.updates.filter((u) => u.sessionUpdate === "tool_call")).toEqual([{
      sessionUpdate: "tool_call",
      toolCallId: "call_1",
      name: "everything__echo",
      title: "everything__echo",
      kind: "other",
      status: "completed",
      rawInput: { message: "from the model" },
      content: [{ type: "content", content: { type: "text", text: "Echo: from the model" } }],
    }])
  })

  it("acp: a call whose arguments name a path shows it as a location, its kind from the tool's annotations, and asks permission under the call's own title", async () => {
    const home = tempDir("mcp-kind-home")
    const workspace = tempDir("mcp-kind-ws")
    const modelFile = join(home, "model.jsonl")
    const note = join(workspace, "note.txt")
    writeFileSync(modelFile, script("fs__write_file", { path: note, content: "hello" }, "Written."))
    const asked: Array<acp.RequestPermissionRequest> = []
    const run = await agent(home, workspace, modelFile, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      const { sessionId } = await ctx.request("session/new", {
        cwd: workspace,
        mcpServers: [{ name: "fs", command: process.execPath, args: [FILESYSTEM, workspace], env: [] }],
      })
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write a note" }] })
    }, {
      permission: (params) => {
        asked.push(params)
        const allow = params.options.find((o) => o.kind === "allow_once")!
        return { outcome: { outcome: "selected", optionId: allow.optionId } }
      },
    })
    expect(run.code, run.stderr).toBe(0)
    expect(readFileSync(note, "utf8")).toBe("hello")
    const call = run.updates.find((u) => u.sessionUpdate === "tool_call")
    expect(call).toMatchObject({
      sessionUpdate: "tool_call",
      title: "Write File (MCP server fs)",
      kind: "edit",
      locations: [{ path: note }],
    })
    expect(asked).toHaveLength(1)
    expect(asked[0]!.toolCall).toMatchObject({
      title: "Write File (MCP server fs)",
      kind: "edit",
      locations: [{ path: note }],
    })
  })

  it("run: the config's mcpServers serve the turn; a bad entry is a usage error naming the field", async () => {
    const home = tempDir("mcp-run-home")
    const workspace = tempDir("mcp-run-ws")
    writeFileSync(join(workspace, "notes.txt"), "hello\n")
    writeFileSync(join(home, "model.jsonl"), script("files__read_text_file", { path: join(workspace, "notes.txt") }, "Read it."))
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        scriptedModel: "model.jsonl",
        mcpServers: [{ name: "files", command: process.execPath, args: [FILESYSTEM, workspace] }],
      }),
    )
    const ran = await turnlog(["run", "read notes.txt"], { cwd: workspace, env: { TURNLOG_HOME: home } })
    expect(ran.stdout).toBe("Read it.\n")
    expect(ran.stderr).toContain(`turnlog: tool files__read_text_file done: hello\n`)
    expect(ran.code).toBe(0)

    writeFileSync(join(home, "config.json"), JSON.stringify({ mcpServers: [{ name: "files", args: [] }] }))
    const refused = await turnlog(["run", "hi"], { cwd: workspace, env: { TURNLOG_HOME: home } })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`config file ${join(home, "config.json")}: mcpServers.0.command: is missing (keys:`)
  })
})
