// The write side as a reducer over AI SDK stream parts: blocks, merged metadata, the one finish and its envelope.
import type { LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider"
import { describe, expect, it } from "@effect/vitest"
import { Assembler } from "@turnlog/assembler"
import { AiSdkChunks } from "@turnlog/llm-ai-sdk"

const options = { provider: "acme", model: "m1", sdkProvider: "anthropic.messages", replyTag: "t1" }
const usage: LanguageModelV3Usage = {
  inputTokens: { total: 120, noCache: 100, cacheRead: 20, cacheWrite: undefined },
  outputTokens: { total: 30, text: 20, reasoning: 10 },
}
const finish = (unified: "stop" | "length" | "tool-calls" | "content-filter"): LanguageModelV3StreamPart => ({
  type: "finish",
  usage,
  finishReason: { unified, raw: unified },
})
const response = { kind: "ai-sdk", version: 1, provider: "acme", model: "m1", sdkProvider: "anthropic.messages" }

describe("AiSdkChunks", () => {
  it("streams each block and ends with the envelope: metadata merged per block, one entry per block", () => {
    const chunks = AiSdkChunks.all([
      { type: "stream-start", warnings: [] },
      { type: "response-metadata", id: "msg_1", modelId: "m1-2025" },
      { type: "reasoning-start", id: "0" },
      { type: "reasoning-delta", id: "0", delta: "Hmm." },
      { type: "reasoning-delta", id: "0", delta: "", providerMetadata: { anthropic: { signature: "EqQBsig" } } },
      { type: "reasoning-end", id: "0" },
      { type: "text-start", id: "1" },
      { type: "text-delta", id: "1", delta: "Reading." },
      { type: "text-end", id: "1" },
      { type: "tool-input-start", id: "call_1", toolName: "read_file" },
      { type: "tool-input-delta", id: "call_1", delta: '{"path":' },
      { type: "tool-input-delta", id: "call_1", delta: '"a.md"}' },
      { type: "tool-input-end", id: "call_1" },
      { type: "tool-call", toolCallId: "call_1", toolName: "read_file", input: '{"path":"a.md"}' },
      finish("tool-calls"),
    ], options)
    expect(chunks).toEqual([
      { type: "block-start", index: 0, blockType: "reasoning" },
      { type: "reasoning-delta", index: 0, text: "Hmm." },
      { type: "block-end", index: 0, block: { type: "reasoning", text: "Hmm." } },
      { type: "block-start", index: 1, blockType: "text" },
      { type: "text-delta", index: 1, text: "Reading." },
      { type: "block-end", index: 1, block: { type: "text", text: "Reading." } },
      { type: "block-start", index: 2, blockType: "tool-call" },
      { type: "tool-call-delta", index: 2, id: "call_1", name: "read_file", argumentsDelta: "" },
      { type: "tool-call-delta", index: 2, id: "call_1", argumentsDelta: '{"path":' },
      { type: "tool-call-delta", index: 2, id: "call_1", argumentsDelta: '"a.md"}' },
      { type: "block-end", index: 2, block: { type: "tool-call", id: "call_1", name: "read_file", arguments: '{"path":"a.md"}' } },
      { type: "usage", usage: { inputTokens: 100, outputTokens: 30, cacheReadTokens: 20, reasoningTokens: 10 } },
      {
        type: "finish",
        reason: { kind: "tool-calls" },
        replayState: {
          response: { ...response, responseId: "msg_1", responseModel: "m1-2025" },
          blocks: [{ type: "reasoning", providerMetadata: { anthropic: { signature: "EqQBsig" } } }, { type: "text" }, { type: "tool-call" }],
        },
      },
    ])
  })

  it("a call that arrives whole streams as one, with its name; a provider-run call is not turnlog's", () => {
    const chunks = AiSdkChunks.all([
      { type: "tool-call", toolCallId: "srv_1", toolName: "server:code_execution", input: "{}", providerExecuted: true },
      { type: "tool-call", toolCallId: "call_2", toolName: "list_files", input: "{}", providerMetadata: { google: { thoughtSignature: "c2ln" } } },
      finish("stop"),
    ], options)
    expect(chunks).toEqual([
      { type: "block-start", index: 0, blockType: "tool-call" },
      { type: "tool-call-delta", index: 0, id: "call_2", name: "list_files", argumentsDelta: "{}" },
      { type: "block-end", index: 0, block: { type: "tool-call", id: "call_2", name: "list_files", arguments: "{}" } },
      { type: "usage", usage: { inputTokens: 100, outputTokens: 30, cacheReadTokens: 20, reasoningTokens: 10 } },
      // "stop" with a call: the call is what the loop must act on.
      {
        type: "finish",
        reason: { kind: "tool-calls" },
        replayState: { response, blocks: [{ type: "tool-call", providerMetadata: { google: { thoughtSignature: "c2ln" } } }] },
      },
    ])
  })

  it("a length finish leaves the cut call open; the assembler drops it with its entry", () => {
    const chunks = AiSdkChunks.all([
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Writing." },
      { type: "tool-input-start", id: "call_9", toolName: "write_file" },
      { type: "tool-input-delta", id: "call_9", delta: '{"path":"out' },
      finish("length"),
    ], options)
    expect(chunks.filter((c) => c.type === "block-end")).toEqual([{ type: "block-end", index: 0, block: { type: "text", text: "Writing." } }])
    const assembled = Assembler.assemble(chunks)
    expect(assembled.finish).toEqual({ kind: "max-tokens" })
    expect(assembled.blocks).toEqual([{ type: "text", text: "Writing." }])
    expect(assembled.replayState).toEqual({ response, blocks: [{ type: "text" }] })
  })

  it("an empty stop is EMPTY_RESPONSE; an unsupported finish is PROVIDER_ERROR; neither carries an envelope", () => {
    expect(AiSdkChunks.all([finish("stop")], options).at(-1)).toEqual({
      type: "finish",
      reason: { kind: "error", failure: { code: "EMPTY_RESPONSE", message: "the model returned an empty response" } },
    })
    expect(AiSdkChunks.all([{ type: "text-delta", id: "t", delta: "Hi" }, finish("content-filter")], options).at(-1)).toEqual({
      type: "finish",
      reason: { kind: "error", failure: { code: "PROVIDER_ERROR", message: 'unsupported finish reason "content-filter" (content-filter)' } },
    })
  })

  it("an error part ends the response (classified), a source that just ends is STREAM_CLOSED, and nothing follows a finish", () => {
    const overloaded = AiSdkChunks.all([
      { type: "text-delta", id: "t", delta: "Hi" },
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      finish("stop"),
      AiSdkChunks.sourceEnd,
    ], options)
    expect(overloaded.slice(-1)).toEqual([{
      type: "finish",
      reason: { kind: "error", failure: { code: "SERVER", message: "overloaded_error: Overloaded" } },
    }])
    expect(overloaded.filter((c) => c.type === "finish")).toHaveLength(1)
    expect(AiSdkChunks.all([AiSdkChunks.sourceEnd], options)).toEqual([{
      type: "finish",
      reason: { kind: "error", failure: { code: "STREAM_CLOSED", message: "the provider stream ended without a result" } },
    }])
  })
})
