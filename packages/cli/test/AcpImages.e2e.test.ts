// Images in prompts through `turnlog acp`, as an editor sends them: the real
// binary, the SDK's client, a pi-ai provider pointed at the loopback server.
// An image goes to a model whose entry takes images as the provider's image
// part, is written to the log once (later turns' requests carry it from that
// one event), replays on session/load, and is in the export; a model whose
// entry takes text only refuses it in one sentence and nothing is stored.
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { agent } from "./support/acpAgent.js"
import { loopbackHome } from "./support/loopbackHome.js"
import { removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })
afterAll(removeTempDirs)

/** 48 KiB of image bytes (the loopback provider does not look inside them). */
const IMAGE = Buffer.from(Array.from({ length: 48 * 1024 }, (_, i) => (i * 7919) % 251)).toString("base64")

const occurrences = (text: string, part: string) => text.split(part).length - 1

describe("an image in an ACP prompt", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  it("reaches a model that takes images, is logged once across three turns, replays on load and is exported", async () => {
    const { home, env } = loopbackHome(server, {
      model: "loop/vision",
      providers: {
        loop: {
          api: "anthropic-messages",
          models: [{ id: "vision", input: ["text", "image"] }, { id: "plain" }],
        },
      },
    }, "image")
    const cwd = tempDir("acp-image-cwd")
    server.enqueue(
      { blocks: [{ type: "text", text: "A picture of noise." }] },
      { blocks: [{ type: "text", text: "Still noise." }] },
      { blocks: [{ type: "text", text: "Noise, thrice." }] },
    )
    const before = server.requests().length
    let sessionId = ""
    const sizes: Array<number> = []
    let refusal: unknown
    let capability: unknown
    const first = await agent(home, cwd, "", async (ctx) => {
      const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      capability = init.agentCapabilities?.promptCapabilities?.image
      sessionId = (await ctx.request("session/new", { cwd, mcpServers: [] })).sessionId
      const logFile = join(home, "sessions", `${sessionId}.jsonl`)
      const answer = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "What is this?" }, { type: "image", mimeType: "image/png", data: IMAGE }],
      })
      expect(answer.stopReason).toBe("end_turn")
      sizes.push(statSync(logFile).size)
      for (const text of ["And now?", "Once more?"]) {
        await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] })
        sizes.push(statSync(logFile).size)
      }
      // A model whose entry takes text only: refused, and the log is as it was.
      await ctx.request("session/set_config_option", { sessionId, configId: "model", value: "loop/plain" })
      refusal = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "And this?" }, { type: "image", mimeType: "image/png", data: IMAGE }],
      }).then(() => "answered", (error: unknown) => error)
      sizes.push(statSync(logFile).size)
    }, { env })
    expect(first.code, first.stderr).toBe(0)
    expect(capability).toBe(true)

    // Each request carried the image as Anthropic's image part: the first as the prompt, the later ones as history.
    const requests = server.requests().slice(before)
    expect(requests).toHaveLength(3)
    for (const request of requests) {
      const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages
      // (pi-ai marks the newest user message's last block for caching: matched, not compared whole.)
      expect(messages[0]).toMatchObject({
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: IMAGE } },
        ],
      })
    }

    // The log grew by the image once: the later turns added far less than its base64.
    const log = readFileSync(join(home, "sessions", `${sessionId}.jsonl`), "utf8")
    expect(occurrences(log, IMAGE)).toBe(1)
    expect(sizes[0]).toBeGreaterThan(IMAGE.length)
    expect(sizes[1]! - sizes[0]!).toBeLessThan(IMAGE.length / 10)
    expect(sizes[2]! - sizes[1]!).toBeLessThan(IMAGE.length / 10)

    expect(refusal).toMatchObject({
      code: -32603,
      message:
        `the turn failed: loop/plain takes text only (its model entry's input has no "image"), so the prompt with an image was neither sent nor logged; choose a model that takes images, or for a model of the config's providers add "input": ["text", "image"] to its entry (IMAGES_UNSUPPORTED)`,
    })
    expect(sizes[3]).toBe(sizes[2])
    expect(server.requests().slice(before)).toHaveLength(3)

    // Loaded by another process, the history shows the image where the user gave it.
    const second = await agent(home, cwd, "", async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      await ctx.request("session/load", { sessionId, cwd, mcpServers: [] })
    }, { env })
    expect(second.code, second.stderr).toBe(0)
    expect(second.updates.filter((u) => u.sessionUpdate === "user_message_chunk").slice(0, 2)).toEqual([
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "What is this?" } },
      { sessionUpdate: "user_message_chunk", content: { type: "image", mimeType: "image/png", data: IMAGE } },
    ])

    const exported = await turnlog(["export", sessionId], { cwd, env: { TURNLOG_HOME: home } })
    expect(exported.code, exported.stderr).toBe(0)
    expect(occurrences(exported.stdout, IMAGE)).toBe(1)
    const page = await turnlog(["export", "--html", sessionId], { cwd, env: { TURNLOG_HOME: home } })
    expect(page.code, page.stderr).toBe(0)
    expect(page.stdout).toContain(`<img class="prompt-image" alt="image (image/png)" src="data:image/png;base64,${IMAGE}">`)
  })
})
