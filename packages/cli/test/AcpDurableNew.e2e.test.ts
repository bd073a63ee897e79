// A session made by session/new is durable before the answer: an editor keeps
// the id, and a new client process (the editor restarted) loads it even though
// no turn was ever written — it used to get "not found" and start another.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it, vi } from "vitest"
import { agent } from "./support/acpAgent.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000 })
afterAll(removeTempDirs)

const answer = (text: string) =>
  JSON.stringify([
    { type: "block-start", index: 0, blockType: "text" },
    { type: "text-delta", index: 0, text },
    { type: "block-end", index: 0, block: { type: "text", text } },
    { type: "finish", reason: { kind: "stop" } },
  ]) + "\n"

describe("session/new", () => {
  it("is durable before it answers: another client process loads the session with no turn written, and prompts it", async () => {
    const home = tempDir("durable-new-home")
    const workspace = tempDir("durable-new-ws")
    const modelFile = join(home, "model.jsonl")
    writeFileSync(modelFile, answer("Still the same session."))
    let sessionId = ""
    const first = await agent(home, workspace, modelFile, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      sessionId = (await ctx.request("session/new", { cwd: workspace, mcpServers: [] })).sessionId
    })
    expect(first.code).toBe(0)
    const log = join(home, "sessions", `${sessionId}.jsonl`)
    expect(existsSync(log)).toBe(true)
    expect(JSON.parse(readFileSync(log, "utf8").split("\n")[0]!)).toMatchObject({ type: "session", version: 4, id: sessionId, cwd: workspace })

    let answered: unknown
    const second = await agent(home, workspace, modelFile, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      await ctx.request("session/load", { sessionId, cwd: workspace, mcpServers: [] })
      answered = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Are you there?" }] })
    })
    expect(second.code).toBe(0)
    expect(second.stderr).not.toContain("not found")
    expect(answered).toMatchObject({ stopReason: "end_turn" })
    const texts = second.updates.flatMap((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [])
    expect(texts).toEqual(["Still the same session."])
    const types = readFileSync(log, "utf8").trim().split("\n").slice(1).map((line) => (JSON.parse(line) as { type: string }).type)
    expect(types[0]).toBe("turn/start")
    expect(types.at(-1)).toBe("turn/end")
  })
})
