// The library guide's two programs with an AI SDK model, run against the
// loopback's Anthropic wire: the Effect one (no Effect.scoped, no load) and
// the Promise facade, each answering from the model, and a second prompt of
// the facade sending the first answer's signature back (native replay); and
// the guide's typed provider config for an OpenAI-compatible server.
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createAnthropic } from "@ai-sdk/anthropic"
import { Effect, Layer, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Agent, AgentLoop, Builtins, Permissions } from "@turnlog/agent"
import { ReplayDiagnostics } from "@turnlog/llm"
import { AiSdkAdapter, type AiSdkProviders } from "@turnlog/llm-ai-sdk"
import { Jsonl } from "@turnlog/store"
import { Loopback } from "@turnlog/testkit"

describe("the library guide with an AI SDK model", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())
  const anthropic = () => createAnthropic({ baseURL: `${server.baseUrl("anthropic-messages")}/v1`, apiKey: "sk-guide-0123456789" })

  it("runs a turn through the Effect API", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "Two files." }] })
    const home = mkdtempSync(join(tmpdir(), "turnlog-guide-"))
    const model = AiSdkAdapter.layer(anthropic()("claude-sonnet-4-5"), { modelInfo: { contextWindow: 200_000, maxTokens: 64_000 } })
    const agent = AgentLoop.layer({ model: "anthropic/claude-sonnet-4-5" }).pipe(
      Layer.provide(Layer.mergeAll(model, Builtins.layer(), Permissions.layerDenyAll)),
      Layer.provide(Layer.merge(ReplayDiagnostics.layerStderr, Jsonl.layerJsonl({ home }))),
    )
    const program = Effect.gen(function*() {
      const loop = yield* AgentLoop.AgentLoop
      const id = yield* loop.createSession({ cwd: process.cwd() })
      let text = ""
      yield* Stream.runForEach(loop.prompt(id, "What is in this directory?"), (u) =>
        Effect.sync(() => {
          if (u.type === "text-delta") text += u.text
        }))
      return text
    })
    expect(await Effect.runPromise(Effect.provide(program, agent))).toBe("Two files.")
  })

  it("runs turns through the Promise facade, replaying the model's own signature", async () => {
    const signature = Buffer.from("guide signature").toString("base64")
    server.enqueue(
      { blocks: [{ type: "reasoning", text: "Hm.", signature }, { type: "text", text: "Hello." }] },
      { blocks: [{ type: "text", text: "Again." }] },
    )
    const agent = Agent.createAgent({
      model: AiSdkAdapter.layer(anthropic()("claude-sonnet-4-5")),
      route: "anthropic/claude-sonnet-4-5",
    })
    expect((await agent.prompt("Hi")).text).toBe("Hello.")
    expect((await agent.prompt("Again?")).text).toBe("Again.")
    expect(JSON.stringify(server.requests().at(-1)!.body)).toContain(signature)
    await agent.close()
  })

  it("serves the route of a typed provider config (AiSdkProviders.Config, layerDecoded)", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "From the local server." }] })
    const config: AiSdkProviders.Config = {
      providers: {
        local: { api: "openai-completions", baseUrl: server.baseUrl("openai-completions"), models: [{ id: "qwen3", contextWindow: 32_768 }] },
      },
    }
    const agent = Agent.createAgent({ model: AiSdkAdapter.layerDecoded(config), route: "local/qwen3" })
    expect((await agent.prompt("Hi")).text).toBe("From the local server.")
    expect(server.requests().at(-1)!.path).toBe("/v1/chat/completions")
    await agent.close()
  })
})
