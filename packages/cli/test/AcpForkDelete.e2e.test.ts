// session/fork and session/delete through the real `turnlog acp` and the SDK's
// client: both are advertised; a fork answers like session/new and continues on
// its own (the original does not get its turns); a delete removes the stored
// session (gone from session/list); a session another process holds is not
// deleted, and the editor is told who holds it.
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type * as acp from "@agentclientprotocol/sdk"
import { afterAll, describe, expect, it, vi } from "vitest"
import { agent } from "./support/acpAgent.js"
import { logLines, removeTempDirs, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000 })
afterAll(removeTempDirs)

const answer = (text: string) =>
  JSON.stringify([
    { type: "block-start", index: 0, blockType: "text" },
    { type: "text-delta", index: 0, text },
    { type: "block-end", index: 0, block: { type: "text", text } },
    { type: "finish", reason: { kind: "stop" } },
  ])

const userTexts = (home: string, id: string) => logLines(home, id).filter((l) => l.type === "user/message").map((l) => l.data.message.content[0].text as string)

describe("session/fork and session/delete", () => {
  it("fork continues apart from the original; delete removes a session, and is refused for one another process holds", async () => {
    const home = tempDir("acp-fork-home")
    const workspace = tempDir("acp-fork-ws")
    const modelFile = join(home, "model.jsonl")
    writeFileSync(modelFile, [answer("One."), answer("Two."), answer("Three.")].join("\n") + "\n")
    let capabilities: unknown
    let original = ""
    let forked: { sessionId: string; modes?: { currentModeId: string } } = { sessionId: "" }
    let listed: Array<string> = []
    let refused = ""
    const run = await agent(home, workspace, modelFile, async (ctx) => {
      const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      capabilities = init.agentCapabilities?.sessionCapabilities
      original = (await ctx.request("session/new", { cwd: workspace, mcpServers: [] })).sessionId
      await ctx.request("session/prompt", { sessionId: original, prompt: [{ type: "text", text: "First." }] })
      forked = await ctx.request("session/fork", { sessionId: original, cwd: workspace, mcpServers: [] })
      await ctx.request("session/prompt", { sessionId: forked.sessionId, prompt: [{ type: "text", text: "Second, in the fork." }] })
      await ctx.request("session/delete", { sessionId: original })
      listed = (await ctx.request("session/list", {})).sessions.map((s: acp.SessionInfo) => s.sessionId)
      // This process holds the fork: another editor process cannot delete it.
      const other = await agent(home, workspace, modelFile, async (ctx2) => {
        await ctx2.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
        refused = await ctx2.request("session/delete", { sessionId: forked.sessionId })
          .then(() => "deleted", (e: { message?: string }) => e.message ?? String(e))
      })
      expect(other.code).toBe(0)
    })
    expect(run.code, run.stderr).toBe(0)
    expect(capabilities).toEqual({ list: {}, close: {}, resume: {}, delete: {}, fork: {} })
    expect(forked.modes?.currentModeId).toBe("ask")
    expect(forked.sessionId).not.toBe(original)
    expect(existsSync(join(home, "sessions", `${original}.jsonl`))).toBe(false)
    expect(listed).toEqual([forked.sessionId])
    expect(userTexts(home, forked.sessionId)).toEqual(["First.", "Second, in the fork."])
    expect(logLines(home, forked.sessionId).find((l) => l.type === "session/fork")?.data).toEqual({
      forkedFrom: { session: original, turn: 1 },
    })
    expect(refused).toMatch(
      new RegExp(`^the session log could not be used: session ${forked.sessionId} is open in an editor \\(turnlog acp, pid \\d+\\) on host \\S+$`),
    )
    const texts = run.updates.flatMap((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [])
    expect(texts).toEqual(["One.", "Two."])
  })
})
