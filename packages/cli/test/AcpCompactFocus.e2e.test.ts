// `/compact <focus>` in an editor, through the real `turnlog acp` and the
// loopback Anthropic wire: the command is advertised as taking input, and the
// focus reaches the summary request the session's model is sent.
import type * as acp from "@agentclientprotocol/sdk"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { agent } from "./support/acpAgent.js"
import { loopbackHome } from "./support/loopbackHome.js"
import { logLines, removeTempDirs, sessionIds, tempDir, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 300_000, hookTimeout: 60_000 })
afterAll(removeTempDirs)

const long = (label: string) => Array.from({ length: 500 }, (_, i) => `${label}${i}`).join(" ")

describe("/compact <focus>", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  it("is advertised with an input hint and asks the summary to keep the focus in view", async () => {
    const { home, env } = loopbackHome(server, {
      model: "local/small",
      providers: {
        local: {
          api: "anthropic-messages",
          models: [{ id: "small", contextWindow: 16384, maxTokens: 4096 }],
        },
      },
      compaction: { keepRecentTokens: 2000 },
    }, "compact")
    const cwd = tempDir("compact-focus-cwd")
    for (let i = 1; i <= 3; i++) {
      server.enqueue({ blocks: [{ type: "text", text: `Answer ${i}. ${long(`a${i}x`)}` }] })
      const args = i === 1 ? ["run", `Question ${i}. ${long(`q${i}x`)}`] : ["run", "--continue", `Question ${i}. ${long(`q${i}x`)}`]
      expect((await turnlog(args, { cwd, env })).code).toBe(0)
    }
    const [sessionId] = sessionIds(home)

    server.enqueue({ blocks: [{ type: "text", text: "Summary: the questions, with the fork tests in view." }] })
    const before = server.requests().length
    let answered: unknown
    const editor = await agent(home, cwd, "", async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      await ctx.request("session/load", { sessionId: sessionId!, cwd, mcpServers: [] })
      answered = await ctx.request("session/prompt", {
        sessionId: sessionId!,
        prompt: [{ type: "text", text: "/compact  the fork command's tests " }],
      })
    }, { env: env })
    expect(editor.code, editor.stderr).toBe(0)
    expect(answered).toEqual({ stopReason: "end_turn" })

    const commands = editor.updates.find((u): u is Extract<acp.SessionUpdate, { sessionUpdate: "available_commands_update" }> =>
      u.sessionUpdate === "available_commands_update"
    )
    expect(commands?.availableCommands.find((c) => c.name === "compact")).toEqual({
      name: "compact",
      description: "Summarise this session's older history now, so later requests start from the summary",
      input: { hint: "what the summary should focus on (optional)" },
    })

    expect(server.requests().length).toBe(before + 1)
    const body = server.requests()[before]!.body as { messages: Array<{ content: Array<{ text?: string }> | string }> }
    const asked = JSON.stringify(body.messages)
    expect(asked).toContain("Answer with the summary only.\\n\\nThe user asks the summary to focus on: the fork command's tests")
    const event = logLines(home, sessionId!).find((l) => l.type === "context/compaction")
    expect(event.data.summary).toBe("Summary: the questions, with the fork tests in view.")
  })
})
