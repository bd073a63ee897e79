// Without a provider key or a configured model, `turnlog acp` answers an
// editor's session/new and session/prompt with the protocol's auth_required
// error naming the keys and the config file (an editor hides stderr), and
// offers the environment-variable method in initialize; it never answers from
// the demo model. With a key set, the same requests are served.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type * as acp from "@agentclientprotocol/sdk"
import { afterAll, describe, expect, it, vi } from "vitest"
import { agent } from "./support/acpAgent.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000 })
afterAll(removeTempDirs)

const KEYS = "ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, DEEPSEEK_API_KEY, MISTRAL_API_KEY"

const failure = async (request: Promise<unknown>) => {
  try {
    await request
  } catch (e) {
    const { code, message } = e as { code: number; message: string }
    return { code, message }
  }
  return "answered"
}

describe("acp without a model", () => {
  it("offers the provider-key method, answers auth_required naming the keys and the config file, and serves once a key is set", async () => {
    const home = tempDir("auth-home")
    const workspace = tempDir("auth-ws")
    const config = join(home, "config.json")
    const noModel = `Authentication required: no model to run: no provider key is set and no config file was found at ${config}. ` +
      `Set ${KEYS}, or set "model" in a config file ($TURNLOG_CONFIG, --config, or config.json in $TURNLOG_HOME). ` +
      `To try turnlog without a key: turnlog demo`
    let init: acp.InitializeResponse | undefined
    const answers: Array<unknown> = []
    const keyless = await agent(home, workspace, undefined, async (ctx) => {
      init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      answers.push(await failure(ctx.request("session/new", { cwd: workspace, mcpServers: [] })))
      answers.push(await failure(ctx.request("authenticate", { methodId: "provider-key" })))
      answers.push(await failure(ctx.request("session/new", { cwd: workspace, mcpServers: [] })))
      // A model configured while the agent runs is said to need a new start, not answered by the demo.
      writeFileSync(config, JSON.stringify({ model: "anthropic/claude-sonnet-4-5" }))
      answers.push(await failure(ctx.request("authenticate", { methodId: "provider-key" })))
      answers.push(await failure(ctx.request("authenticate", { methodId: "oauth" })))
    })
    expect(keyless.code).toBe(0)
    expect(init?.authMethods).toEqual([{
      id: "provider-key",
      name: "Provider key",
      description: `Set ${KEYS} in the environment the agent starts with, or set "model" in the config file ${config}`,
    }])
    expect(answers).toEqual([
      { code: -32000, message: noModel },
      { code: -32000, message: noModel },
      { code: -32000, message: noModel },
      {
        code: -32000,
        message: "Authentication required: a model is configured now (anthropic/claude-sonnet-4-5), " +
          "but this agent started without one: start it again to use it",
      },
      { code: -32602, message: `Invalid params: authentication method "oauth" is not one offered (provider-key)` },
    ])
    expect(keyless.updates).toEqual([])
    expect(keyless.stderr).toContain(noModel.slice("Authentication required: ".length))
    expect(keyless.stderr).not.toContain("demo model")

    // Started again with a key in its environment: authenticate succeeds and a session is made.
    const keyHome = tempDir("auth-key-home")
    let authenticated: unknown
    let sessionId = ""
    const keyed = await agent(keyHome, workspace, undefined, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      authenticated = await ctx.request("authenticate", { methodId: "provider-key" })
      sessionId = (await ctx.request("session/new", { cwd: workspace, mcpServers: [] })).sessionId
      await ctx.request("session/close", { sessionId })
    }, { env: { OPENAI_API_KEY: "sk-test-not-used" } })
    expect(keyed.code).toBe(0)
    expect(authenticated).toEqual({})
    expect(sessionId).toMatch(/^\S+$/)
    expect(keyed.stderr).toContain("OPENAI_API_KEY is set: using openai/gpt-5-mini")

    // That session, opened again without the key: its history loads, a prompt is answered auth_required.
    let prompted: unknown
    const again = await agent(keyHome, workspace, undefined, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      await ctx.request("session/load", { sessionId, cwd: workspace, mcpServers: [] })
      prompted = await failure(ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Hello?" }] }))
    })
    expect(again.code).toBe(0)
    expect(prompted).toEqual({
      code: -32000,
      message: noModel.replace(config, join(keyHome, "config.json")),
    })
    expect(again.updates.filter((u) => u.sessionUpdate === "agent_message_chunk")).toEqual([])
  })
})
