// The reasoning effort of a model that reasons, through the real binary and
// the loopback OpenAI Responses wire: offered under `acp` as a thought_level
// config option, set by session/set_config_option, carried by the next
// request's body, restored by session/load from the log; a model that does not
// reason is not offered it; `run --reasoning` sets it the same way.
import type * as acp from "@agentclientprotocol/sdk"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { agent } from "./support/acpAgent.js"
import { loopbackHome } from "./support/loopbackHome.js"
import { logLines, removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 })
afterAll(removeTempDirs)

const effortOption = (current: string) => ({
  id: "reasoning",
  name: "Reasoning effort",
  description: "How hard the model thinks before it answers",
  category: "thought_level",
  type: "select",
  currentValue: current,
  options: [
    { value: "off", name: "Off" },
    { value: "low", name: "Low" },
    { value: "medium", name: "Medium" },
    { value: "high", name: "High" },
  ],
})

describe("reasoning effort", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  it("is a config option for a model that reasons, sent on the wire, kept in the log and restored on load", async () => {
    const { home, env } = loopbackHome(server, {
      model: "loop/thinker",
      providers: {
        loop: {
          api: "openai-responses",
          models: [
            { id: "thinker", contextWindow: 200000, maxTokens: 8192, reasoning: true },
            { id: "plain", contextWindow: 200000, maxTokens: 8192 },
          ],
        },
      },
    }, "reasoning")
    const workspace = tempDir("reasoning-ws")
    const effortSent = (index: number) => (server.requests()[index]!.body as { reasoning?: { effort?: string } }).reasoning?.effort

    let sessionId = ""
    let offered: unknown
    let afterSet: unknown
    let afterSwitch: unknown
    let refused = ""
    server.enqueue({ blocks: [{ type: "text", text: "Thought hard." }] })
    const first = await agent(home, workspace, "", async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      const created = await ctx.request("session/new", { cwd: workspace, mcpServers: [] })
      sessionId = created.sessionId
      offered = created.configOptions?.find((o: acp.SessionConfigOption) => o.id === "reasoning")
      afterSet = (await ctx.request("session/set_config_option", { sessionId, configId: "reasoning", value: "high" })).configOptions
      refused = await ctx.request("session/set_config_option", { sessionId, configId: "reasoning", value: "extreme" })
        .then(() => "set", (e: { message?: string }) => e.message ?? String(e))
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Think." }] })
      afterSwitch = (await ctx.request("session/set_config_option", { sessionId, configId: "model", value: "loop/plain" })).configOptions
    }, { env })
    expect(first.code, first.stderr).toBe(0)
    expect(offered).toEqual(effortOption("off"))
    expect((afterSet as Array<{ id: string }>).find((o) => o.id === "reasoning")).toEqual(effortOption("high"))
    expect(refused).toBe(`Invalid params: reasoning effort "extreme" is not one offered (off, low, medium, high)`)
    // A model that does not reason is not offered an effort.
    expect((afterSwitch as Array<{ id: string }>).map((o) => o.id)).toEqual(["model"])
    expect(server.requests().length).toBe(1)
    expect(effortSent(0)).toBe("high")
    expect(logLines(home, sessionId).filter((l) => l.type === "session/reasoning").map((l) => l.data)).toEqual([{ effort: "high" }])

    // Loaded again (on its default model, which reasons): the effort the log has.
    let restored: unknown
    server.enqueue({ blocks: [{ type: "text", text: "Still thinking hard." }] })
    const second = await agent(home, workspace, "", async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      const loaded = await ctx.request("session/load", { sessionId, cwd: workspace, mcpServers: [] })
      restored = loaded.configOptions?.find((o: acp.SessionConfigOption) => o.id === "reasoning")
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Again." }] })
    }, { env })
    expect(second.code, second.stderr).toBe(0)
    expect(restored).toEqual(effortOption("high"))
    expect(effortSent(1)).toBe("high")

    // run --reasoning low: logged, and sent.
    server.enqueue({ blocks: [{ type: "text", text: "Lightly." }] })
    const run = await turnlog(["run", "--session", sessionId, "--reasoning", "low", "Briefly."], {
      cwd: workspace,
      env: { TURNLOG_HOME: home, ...env },
    })
    expect(run.code, run.stderr).toBe(0)
    expect(effortSent(2)).toBe("low")
    expect(logLines(home, sessionId).filter((l) => l.type === "session/reasoning").map((l) => l.data)).toEqual([
      { effort: "high" },
      { effort: "low" },
    ])
  })
})
