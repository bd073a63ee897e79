// The Promise facade: one session over several prompts, a custom tool whose
// result the model is sent, permissions through a plain callback, and every
// failure a plain AgentFailure with a code and one sentence.
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Agent, Tools } from "@turnlog/agent"
import { ChunkScript, LlmAdapter, Scripted } from "@turnlog/llm"
import type { LlmRequest } from "@turnlog/llm/LlmAdapter"
import { Jsonl } from "@turnlog/store"

const scripted = async (script: Scripted.Script) => {
  const made = await Effect.runPromise(Scripted.make(script))
  return {
    model: Layer.succeed(LlmAdapter.LlmAdapter, made.adapter),
    requests: (): Promise<ReadonlyArray<LlmRequest>> => Effect.runPromise(made.requests),
  }
}

const weather = Tools.define({
  name: "weather",
  description: "Today's weather in a city.",
  parameters: Schema.Struct({ city: Schema.String }),
  display: { kind: "fetch", title: ({ city }) => `Weather in ${city}` },
  prepare: ({ city }) => Effect.succeed({ run: Effect.succeed(`Sunny in ${city}, 21 °C`) }),
})

describe("createAgent", () => {
  it("answers prompts in one session, runs a custom tool and sends its result to the model", async () => {
    const { model, requests } = await scripted([
      ChunkScript.response([ChunkScript.toolCall("call_1", "weather", { city: "Oslo" })]),
      ChunkScript.response([ChunkScript.text("It is sunny in Oslo.")]),
      ChunkScript.response([ChunkScript.text("You asked about Oslo.")]),
    ])
    const agent = Agent.createAgent({ model, route: "test/m", tools: [weather], onDiagnostic: () => {} })
    const first = await agent.prompt("Weather in Oslo?")
    expect(first).toEqual({
      sessionId: agent.sessionId(),
      text: "It is sunny in Oslo.",
      reason: "completed",
      toolResults: [{ name: "weather", content: "Sunny in Oslo, 21 °C", isError: false }],
    })
    const second = await agent.prompt("Which city did I ask about?")
    expect(second.text).toBe("You asked about Oslo.")
    expect(second.sessionId).toBe(first.sessionId)
    // The third request carries the conversation; the tool's result is a user message whose source is the tool.
    const sent = (await requests())[2]!.messages
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"])
    expect(sent[1]!.content).toEqual([{ type: "tool-call", id: "call_1", name: "weather", arguments: '{"city":"Oslo"}' }])
    expect({ content: sent[2]!.content, source: sent[2]!.source }).toEqual({
      content: [{ type: "tool-result", toolCallId: "call_1", content: "Sunny in Oslo, 21 °C" }],
      source: { kind: "tool", callId: "call_1" },
    })
    expect((await requests())[0]!.tools?.map((t) => t.name)).toEqual(["weather"])
    await agent.close()
    await expect(agent.prompt("again")).rejects.toMatchObject({ name: "AgentFailure", code: "CLOSED", message: "the agent is closed" })
  })

  it("refuses a write unless allow says yes, and continues a stored session by id", async () => {
    const home = mkdtempSync(join(tmpdir(), "turnlog-facade-"))
    const cwd = mkdtempSync(join(tmpdir(), "turnlog-facade-cwd-"))
    const { model } = await scripted([
      ChunkScript.response([ChunkScript.toolCall("w1", "write_file", { path: "a.txt", content: "a" })]),
      ChunkScript.response([ChunkScript.text("Could not write.")]),
      ChunkScript.response([ChunkScript.text("Still here.")]),
    ])
    const asked: Array<string> = []
    const agent = Agent.createAgent({
      model,
      route: "test/m",
      cwd,
      store: Jsonl.layerJsonl({ home }),
      allow: (r) => {
        asked.push(r.title)
        return false
      },
    })
    const reply = await agent.prompt("Write a.txt")
    expect(asked).toEqual(["Write a.txt"])
    expect(reply.toolResults.map((r) => r.isError)).toEqual([true])
    await agent.close()
    const again = Agent.createAgent({ model, cwd, store: Jsonl.layerJsonl({ home }), sessionId: reply.sessionId })
    expect((await again.prompt("Still?")).text).toBe("Still here.")
    await again.close()
  })

  it("rejects with a plain error when the turn fails", async () => {
    const { model } = await scripted([])
    const agent = Agent.createAgent({ model, route: "test/m" })
    const failure = await agent.prompt("Hi").catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(Error)
    expect(failure).toMatchObject({ name: "AgentFailure", code: "SCRIPT_EXHAUSTED", message: "the scripted model has no response for call 1" })
    await agent.close()
  })
})
