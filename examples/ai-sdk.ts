// Any AI SDK language model is an adapter (AiSdkAdapter.layer), behind the
// Promise facade (createAgent) with a custom tool. The model here is a small
// hand-written LanguageModelV3 (no key, no network): it calls the tool, then
// answers with signed reasoning. Printed: the reply, and the prompt the model
// was sent the second time (the tool's call and result in the history).
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider"
import { Effect, Schema } from "effect"
import { Agent, Tools } from "@turnlog/agent"
import { AiSdkAdapter } from "@turnlog/llm-ai-sdk"

const weather = Tools.define({
  name: "weather",
  description: "Today's weather in a city.",
  parameters: Schema.Struct({ city: Schema.String }),
  display: { kind: "fetch", title: ({ city }) => `Weather in ${city}` },
  prepare: ({ city }) => Effect.succeed({ run: Effect.succeed(`Sunny in ${city}, 21 °C`) }),
})

const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}
const replies: Array<Array<LanguageModelV3StreamPart>> = [
  [
    { type: "tool-call", toolCallId: "call_1", toolName: "weather", input: '{"city":"Oslo"}' },
    { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage },
  ],
  [
    { type: "reasoning-start", id: "r", providerMetadata: { anthropic: { signature: "c2lnbmVk" } } },
    { type: "reasoning-delta", id: "r", delta: "The tool said sunny." },
    { type: "reasoning-end", id: "r" },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: "It is sunny in Oslo." },
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: { unified: "stop", raw: "end_turn" }, usage },
  ],
]
const prompts: Array<LanguageModelV3CallOptions["prompt"]> = []
const model: LanguageModelV3 = {
  specificationVersion: "v3",
  provider: "anthropic.messages",
  modelId: "claude-sonnet-4-5",
  supportedUrls: {},
  doGenerate: () => Promise.reject(new Error("turnlog streams")),
  doStream: async (options) => {
    prompts.push(options.prompt)
    const parts = replies.shift() ?? []
    return { stream: new ReadableStream({ start: (c) => (parts.forEach((p) => c.enqueue(p)), c.close()) }) }
  },
}

const agent = Agent.createAgent({ model: AiSdkAdapter.layer(model), route: "anthropic/claude-sonnet-4-5", tools: [weather] })
const reply = await agent.prompt("Weather in Oslo?")
await agent.close()
console.log(JSON.stringify({
  reply: { text: reply.text, reason: reply.reason, toolResults: reply.toolResults },
  secondPrompt: prompts[1]?.map((m) => ({ role: m.role, content: m.content })),
}))
