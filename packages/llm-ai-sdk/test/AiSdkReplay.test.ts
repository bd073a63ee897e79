// The read side of the ai-sdk envelope: what replays natively, and the one reason each unusable state degrades with.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { History } from "@turnlog/history"
import type { AssistantBlock, Message } from "@turnlog/protocol"
import { MessageId } from "@turnlog/protocol"
import { AiSdkReplay } from "@turnlog/llm-ai-sdk"

const route = { provider: "acme", model: "m1" }
const response = { kind: "ai-sdk", version: 1, ...route, sdkProvider: "anthropic.messages" }

const message = (content: ReadonlyArray<AssistantBlock>, replayState?: unknown): Message => ({
  id: MessageId.make("a1"),
  role: "assistant",
  content,
  source: { kind: "model", ...route, ...(replayState === undefined ? {} : { replayState }) },
})

const thinking: AssistantBlock = { type: "reasoning", text: "Let me see." }
const answer: AssistantBlock = { type: "text", text: "Here." }
const call: AssistantBlock = { type: "tool-call", id: "call_1", name: "read_file", arguments: '{"path":"a.md"}' }

const signed = { type: "reasoning", providerMetadata: { anthropic: { signature: "EqQBsig" } } }

describe("AiSdkReplay.rebuild", () => {
  it("rebuilds the prompt parts with each block's metadata as its provider options", () => {
    expect(AiSdkReplay.rebuild(message([thinking, answer, call], { response, blocks: [signed, { type: "text" }, { type: "tool-call" }] }))).toEqual({
      route: { ...route, sdkProvider: "anthropic.messages" },
      parts: [
        { type: "reasoning", text: "Let me see.", providerOptions: { anthropic: { signature: "EqQBsig" } } },
        { type: "text", text: "Here." },
        { type: "tool-call", toolCallId: "call_1", toolName: "read_file", input: { path: "a.md" } },
      ],
    })
  })

  it("keeps redacted reasoning's data and an OpenAI item's null encrypted content as streamed", () => {
    const redacted = { type: "reasoning", providerMetadata: { anthropic: { redactedData: "opaque" } } }
    const item = { type: "text", providerMetadata: { openai: { itemId: "msg_1", reasoningEncryptedContent: null } } }
    const rebuilt = AiSdkReplay.rebuild(message([{ type: "reasoning", text: "" }, answer], { response, blocks: [redacted, item] }))
    expect(rebuilt).toMatchObject({
      parts: [
        { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: "opaque" } } },
        { type: "text", text: "Here.", providerOptions: { openai: { itemId: "msg_1", reasoningEncryptedContent: null } } },
      ],
    })
  })

  const reasons: ReadonlyArray<readonly [string, Message, string]> = [
    [
      "a pi-ai state",
      message([answer], { response: { kind: "pi-ai", version: 2, api: "x", ...route, stopReason: "stop" }, blocks: [{ type: "text" }] }),
      'replay state kind "pi-ai" is not "ai-sdk"',
    ],
    ["the flat pi-ai version 1", message([answer], { kind: "pi-ai", version: 1, blocks: [] }), 'replay state of kind "pi-ai" has no response'],
    [
      "another version",
      message([answer], { response: { ...response, version: 2 }, blocks: [{ type: "text" }] }),
      "ai-sdk replay state version 2 is not supported (expected 1)",
    ],
    [
      "another model",
      message([answer], { response: { ...response, model: "m2" }, blocks: [{ type: "text" }] }),
      'replay state model "m2" differs from the message\'s model "m1"',
    ],
    [
      "no sdk provider",
      message([answer], { response: { ...response, sdkProvider: "" }, blocks: [{ type: "text" }] }),
      "response.sdkProvider is not a non-empty string",
    ],
    ["fewer entries than blocks", message([thinking, answer], { response, blocks: [signed] }), "replay state has 1 block entries but the message has 2 blocks"],
    ["a block of another type", message([answer, thinking], { response, blocks: [signed, { type: "text" }] }), "block 0 is text but its entry is reasoning"],
    [
      "metadata that is not an object",
      message([answer], { response, blocks: [{ type: "text", providerMetadata: "x" }] }),
      "block 0 providerMetadata is not an object",
    ],
    [
      "a signature that is not a string",
      message([thinking, answer], { response, blocks: [{ type: "reasoning", providerMetadata: { anthropic: { signature: 7 } } }, { type: "text" }] }),
      "block 0 anthropic.signature is not a string",
    ],
    [
      "a thought signature that is not base64",
      message([call], { response, blocks: [{ type: "tool-call", providerMetadata: { google: { thoughtSignature: "not base64!" } } }] }),
      "block 0 google.thoughtSignature is not base64",
    ],
    [
      "signed reasoning last (a cut reply)",
      message([answer, thinking], { response, blocks: [{ type: "text" }, signed] }),
      "block 1: signed reasoning cannot be replayed as the message's last block",
    ],
  ]
  it.each(reasons)("%s degrades with its reason", (_, m, reason) => {
    expect(AiSdkReplay.rebuild(m)).toBe(reason)
  })

  it("the reconstructor sends a degraded message provider-neutral (text and tool calls, no reasoning) and reports it", async () => {
    const diagnostics: Array<unknown> = []
    const m = message([thinking, answer, call], { response: { ...response, version: 9 }, blocks: [] })
    const natives = await Effect.runPromise(History.reconstruct([m], AiSdkReplay.codec, {
      targetRoute: "acme/m1",
      report: (ds) => Effect.sync(() => diagnostics.push(...ds)),
    }))
    expect(natives).toEqual([{
      route: undefined,
      parts: [{ type: "text", text: "Here." }, { type: "tool-call", toolCallId: "call_1", toolName: "read_file", input: { path: "a.md" } }],
    }])
    expect(diagnostics).toEqual([{
      code: "INVALID_REPLAY_STATE",
      messageId: "a1",
      historicalRoute: "acme/m1",
      targetRoute: "acme/m1",
      reason: "ai-sdk replay state version 9 is not supported (expected 1)",
    }])
  })
})
