import { describe, expect, it } from "@effect/vitest"
import type { AssistantMessage } from "@earendil-works/pi-ai"
import { Cause, Effect, Exit, Option } from "effect"
import { History, type InvalidReplayState, type ReplayDiagnostic } from "@turnlog/history"
import type { AssistantBlock, Message } from "@turnlog/protocol"
import { PiAiReplay } from "@turnlog/llm-pi-ai"
import { assistantMessage, durableBlocks, hasNoUndefined, piAssistant, toolCall, zeroUsage } from "./fixtures.js"

/** Stores a pi-ai message the way the write side does, then decodes it. */
const roundTrip = (original: AssistantMessage) => {
  const state = PiAiReplay.toReplayState(original)
  const message = assistantMessage("m", durableBlocks(original), state, {
    provider: original.provider,
    model: original.model,
  })
  return { state, decoded: Effect.runSyncExit(PiAiReplay.codec.decode(message)) }
}

const reasonOf = (message: Message): string | undefined => {
  const exit = Effect.runSyncExit(PiAiReplay.codec.decode(message))
  if (Exit.isSuccess(exit)) return undefined
  return Option.getOrThrow(Cause.failureOption(exit.cause)).reason
}

const v2 = (blocks: ReadonlyArray<unknown>, response: Record<string, unknown> = {}) => ({
  response: { kind: "pi-ai", version: 2, api: "anthropic-messages", provider: "acme", model: "m1", stopReason: "stop", ...response },
  blocks,
})

const text = (t: string): AssistantBlock => ({ type: "text", text: t })
const reasoning = (t: string): AssistantBlock => ({ type: "reasoning", text: t })
const call = (id: string, name: string, args: string): AssistantBlock => ({ type: "tool-call", id, name, arguments: args })

describe("PiAiReplay: version-2 round trip", () => {
  const cases: ReadonlyArray<readonly [string, AssistantMessage]> = [
    ["text without a signature", piAssistant([{ type: "text", text: "hello" }])],
    ["text with a signature", piAssistant([{ type: "text", text: "hello", textSignature: '{"v":1,"id":"msg_1"}' }], { api: "openai-responses" })],
    ["reasoning without a signature", piAssistant([{ type: "thinking", thinking: "hmm" }, { type: "text", text: "ok" }])],
    ["reasoning with a signature", piAssistant([{ type: "thinking", thinking: "hmm", thinkingSignature: "sig-abc" }, { type: "text", text: "ok" }])],
    [
      "redacted reasoning",
      piAssistant([
        { type: "thinking", thinking: "[Reasoning redacted]", thinkingSignature: "opaque", redacted: true },
        { type: "text", text: "ok" },
      ]),
    ],
    ["a tool call without a signature", piAssistant([toolCall("call_1", "read", { path: "a.txt" })], { stopReason: "toolUse" })],
    [
      "a tool call with a thought signature",
      piAssistant([toolCall("call_1", "read", { path: "a.txt", n: [1, 2] }, "c2lnbmF0dXJl")], { api: "google-generative-ai", stopReason: "toolUse" }),
    ],
    ["response model and id", piAssistant([{ type: "text", text: "hi" }], { responseModel: "m1-2025", responseId: "resp_9" })],
    [
      "every kind together",
      piAssistant([
        { type: "thinking", thinking: "plan", thinkingSignature: "s1" },
        { type: "text", text: "doing it" },
        toolCall("toolu_1", "write", { path: "b", content: "x" }),
      ], { stopReason: "toolUse", responseId: "msg_01" }),
    ],
  ]

  it.each(cases)("%s: the decoded message is the original, signatures and ids included", (_name, original) => {
    const { decoded } = roundTrip(original)
    expect(Exit.isSuccess(decoded)).toBe(true)
    if (Exit.isSuccess(decoded)) expect(decoded.value).toEqual(original)
  })

  it.each(cases)("%s: the envelope has one entry per block and no undefined field", (_name, original) => {
    const { state } = roundTrip(original)
    expect(state.blocks).toHaveLength(original.content.length)
    expect(hasNoUndefined(state)).toBe(true)
    expect(JSON.parse(JSON.stringify(state))).toEqual(state)
  })

  it("writes exactly the documented envelope", () => {
    const original = piAssistant([
      { type: "thinking", thinking: "t", thinkingSignature: "sig" },
      { type: "thinking", thinking: "[Reasoning redacted]", thinkingSignature: "enc", redacted: true },
      { type: "text", text: "a", textSignature: "ts" },
      { type: "text", text: "b", textSignature: "" },
      toolCall("c1", "read", {}, "dGhvdWdodA=="),
      toolCall("c2", "read", {}),
    ], { api: "google-generative-ai", provider: "google", model: "gemini-x", responseModel: "gemini-x-001", stopReason: "toolUse" })
    expect(PiAiReplay.toReplayState(original)).toStrictEqual({
      response: {
        kind: "pi-ai",
        version: 2,
        api: "google-generative-ai",
        provider: "google",
        model: "gemini-x",
        stopReason: "toolUse",
        responseModel: "gemini-x-001",
      },
      blocks: [
        { type: "reasoning", thinkingSignature: "sig" },
        { type: "reasoning", thinkingSignature: "enc", redacted: true },
        { type: "text", textSignature: "ts" },
        { type: "text" },
        { type: "tool-call", thoughtSignature: "dGhvdWdodA==" },
        { type: "tool-call" },
      ],
    })
  })
})

describe("PiAiReplay: unusable state degrades with its own reason", () => {
  const one = [text("hi")]
  const entry = [{ type: "text" }]
  const cases: ReadonlyArray<readonly [string, Message, string]> = [
    ["a state that is not an object", assistantMessage("m", one, "pi-ai"), "replay state is not an object"],
    ["a state that is an array", assistantMessage("m", one, [1]), "replay state is not an object"],
    ["a missing response", assistantMessage("m", one, { blocks: entry }), "replay state has no response"],
    ["an array response", assistantMessage("m", one, { response: [], blocks: entry }), "replay state response is not an object"],
    ["another adapter's kind", assistantMessage("m", one, v2(entry, { kind: "ai-sdk" })), 'replay state kind "ai-sdk" is not "pi-ai"'],
    [
      "the flat version-1 form",
      assistantMessage("m", one, {
        kind: "pi-ai",
        version: 1,
        api: "anthropic-messages",
        provider: "acme",
        model: "m1",
        stopReason: "stop",
        blocks: [{ type: "text" }],
      }),
      "legacy flat version-1 pi-ai state",
    ],
    ["version 3", assistantMessage("m", one, v2(entry, { version: 3 })), "pi-ai replay state version 3 is not supported (expected 2)"],
    ["an empty api", assistantMessage("m", one, v2(entry, { api: "" })), "response.api is not a non-empty string"],
    ["an empty provider", assistantMessage("m", one, v2(entry, { provider: "" })), "response.provider is not a non-empty string"],
    ["an empty model", assistantMessage("m", one, v2(entry, { model: "" })), "response.model is not a non-empty string"],
    [
      "an unknown stopReason",
      assistantMessage("m", one, v2(entry, { stopReason: "finished" })),
      'response.stopReason "finished" is not a known pi-ai stop reason',
    ],
    // pi-ai leaves a message that stopped in error out of every request: its content would vanish.
    [
      "an error stopReason",
      assistantMessage("m", one, v2(entry, { stopReason: "error" })),
      'response.stopReason "error" would leave the message out of the request',
    ],
    [
      "an aborted stopReason",
      assistantMessage("m", one, v2(entry, { stopReason: "aborted" })),
      'response.stopReason "aborted" would leave the message out of the request',
    ],
    ["a non-string responseModel", assistantMessage("m", one, v2(entry, { responseModel: 7 })), "response.responseModel is not a string"],
    ["a non-string responseId", assistantMessage("m", one, v2(entry, { responseId: null })), "response.responseId is not a string"],
    ["missing blocks", assistantMessage("m", one, { response: v2([]).response }), "replay state has no blocks"],
    [
      "blocks that are not an array",
      assistantMessage("m", one, { response: v2([]).response, blocks: { 0: { type: "text" } } }),
      "replay state blocks is not an array",
    ],
    ["a block entry that is not an object", assistantMessage("m", one, v2(["text"])), "block 0 entry is not an object"],
    ["a block entry of unknown type", assistantMessage("m", one, v2([{ type: "image" }])), 'block 0 entry has unknown type "image"'],
    ["a non-string text signature", assistantMessage("m", one, v2([{ type: "text", textSignature: 1 }])), "block 0 entry textSignature is not a string"],
    [
      "a non-string thinking signature",
      assistantMessage("m", [reasoning("r")], v2([{ type: "reasoning", thinkingSignature: { sig: 1 } }])),
      "block 0 entry thinkingSignature is not a string",
    ],
    [
      "a non-string thought signature",
      assistantMessage("m", [call("c", "t", "{}")], v2([{ type: "tool-call", thoughtSignature: false }])),
      "block 0 entry thoughtSignature is not a string",
    ],
    [
      "a non-boolean redacted",
      assistantMessage("m", [reasoning("r")], v2([{ type: "reasoning", thinkingSignature: "s", redacted: "yes" }])),
      "block 0 entry redacted is not a boolean",
    ],
    [
      "a provider differing from the source",
      assistantMessage("m", one, v2(entry, { provider: "other" })),
      'replay state provider "other" differs from the message\'s provider "acme"',
    ],
    [
      "a model differing from the source",
      assistantMessage("m", one, v2(entry, { model: "m2" })),
      'replay state model "m2" differs from the message\'s model "m1"',
    ],
    [
      "a block count mismatch (a dropped tool call under an unpruned envelope)",
      assistantMessage("m", one, v2([{ type: "text" }, { type: "tool-call" }])),
      "replay state has 2 block entries but the message has 1 blocks",
    ],
    [
      "a block type mismatch",
      assistantMessage("m", [text("a"), call("c", "t", "{}")], v2([{ type: "text" }, { type: "reasoning" }])),
      "block 1 is tool-call but its entry is reasoning",
    ],
    [
      "an openai-responses reasoning signature that is not JSON",
      assistantMessage(
        "m",
        [reasoning("r"), text("a")],
        v2([{ type: "reasoning", thinkingSignature: "rs_123" }, { type: "text" }], { api: "openai-responses" }),
      ),
      "block 0: openai-responses reasoning signature is not a JSON object",
    ],
    [
      "an openai-responses reasoning signature that is JSON but not an object",
      assistantMessage("m", [reasoning("r")], v2([{ type: "reasoning", thinkingSignature: '["rs_1"]' }], { api: "openai-responses" })),
      "block 0: openai-responses reasoning signature is not a JSON object",
    ],
    [
      "a google thought signature on a tool call that is not base64",
      assistantMessage("m", [call("c", "t", "{}")], v2([{ type: "tool-call", thoughtSignature: "not base64!" }], { api: "google-generative-ai" })),
      "block 0: google thought signature is not base64",
    ],
    [
      "a google thought signature on text that is not base64",
      assistantMessage("m", [text("a")], v2([{ type: "text", textSignature: "abc" }], { api: "google-generative-ai" })),
      "block 0: google thought signature is not base64",
    ],
    [
      "a redacted reasoning block without a signature",
      assistantMessage("m", [reasoning("[Reasoning redacted]")], v2([{ type: "reasoning", redacted: true }])),
      "block 0: redacted reasoning has no signature",
    ],
  ]

  it.each(cases)("%s", (_name, message, reason) => {
    expect(reasonOf(message)).toBe(reason)
  })

  it("every case has a different reason, except where the same fact is broken twice", () => {
    const distinct = new Set(cases.map(([, , reason]) => reason))
    // not-an-object (state/array), JSON (text/array), base64 (tool call/text) share a reason on purpose
    expect(distinct.size).toBe(cases.length - 3)
  })

  it("the same signatures are fine for apis that do not parse them", () => {
    expect(reasonOf(assistantMessage("m", [reasoning("r"), text("a")], v2([{ type: "reasoning", thinkingSignature: "rs_123" }, { type: "text" }]))))
      .toBe(undefined)
    expect(reasonOf(assistantMessage("m", [call("c", "t", "{}")], v2([{ type: "tool-call", thoughtSignature: "not base64!" }])))).toBe(undefined)
  })

  it("signed reasoning as the last block (a response cut off after it) degrades where the api refuses it", () => {
    const endsInReasoning = (api: string) =>
      reasonOf(
        assistantMessage(
          "m",
          [text("a"), reasoning("r")],
          v2([{ type: "text" }, { type: "reasoning", thinkingSignature: api.includes("responses") ? '{"id":"rs_1"}' : "sig" }], { api }),
        ),
      )
    expect(endsInReasoning("anthropic-messages")).toBe("block 1: anthropic-messages cannot replay signed reasoning as the message's last block")
    expect(endsInReasoning("bedrock-converse-stream")).toBe("block 1: bedrock-converse-stream cannot replay signed reasoning as the message's last block")
    expect(endsInReasoning("openai-responses")).toBe("block 1: openai-responses cannot replay signed reasoning as the message's last block")
    expect(endsInReasoning("openai-completions")).toBe(undefined)
    // Unsigned reasoning last, and signed reasoning before other blocks, replay natively.
    expect(reasonOf(assistantMessage("m", [reasoning("r")], v2([{ type: "reasoning" }])))).toBe(undefined)
    expect(reasonOf(assistantMessage("m", [reasoning("r"), text("a")], v2([{ type: "reasoning", thinkingSignature: "sig" }, { type: "text" }])))).toBe(
      undefined,
    )
  })

  it("decode answers with a completed Exit (the reconstructor's synchronous path)", () => {
    expect(Exit.isExit(PiAiReplay.codec.decode(assistantMessage("m", [text("a")], v2([{ type: "text" }]))))).toBe(true)
    expect(Exit.isExit(PiAiReplay.codec.decode(assistantMessage("m", [text("a")], "bad")))).toBe(true)
  })
})

describe("PiAiReplay: provider-neutral conversion", () => {
  it("keeps durable content with no real api, zero usage, and the stop reason the content implies", () => {
    const message = assistantMessage("m", [reasoning("plan"), text("calling"), call("c1", "read", '{"path":"a"}')])
    expect(PiAiReplay.foreign(message)).toStrictEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "plan" },
        { type: "text", text: "calling" },
        { type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } },
      ],
      api: "turnlog-foreign",
      provider: "acme",
      model: "m1",
      usage: zeroUsage(),
      stopReason: "toolUse",
      timestamp: 0,
    })
    expect(PiAiReplay.foreign(assistantMessage("m", [text("done")])).stopReason).toBe("stop")
  })

  it("malformed or non-object tool arguments become {}", () => {
    const message = assistantMessage("m", [call("c1", "a", '{"path":'), call("c2", "b", "[1,2]"), call("c3", "c", "")])
    const natives = PiAiReplay.foreign(message).content
    expect(natives.map((b) => (b.type === "toolCall" ? b.arguments : undefined))).toEqual([{}, {}, {}])
  })

  it("toPiAssistant: native when usable, neutral (and told why) when not, neutral silently without state", () => {
    const original = piAssistant([{ type: "thinking", thinking: "t", thinkingSignature: "sig" }, { type: "text", text: "a" }])
    const stored = assistantMessage("good", durableBlocks(original), PiAiReplay.toReplayState(original))
    const degraded: Array<readonly [string, InvalidReplayState]> = []
    const recover = (m: Message) => PiAiReplay.toPiAssistant(m, (e) => degraded.push([m.id, e]))
    expect(recover(stored)).toEqual(original)

    expect(recover(assistantMessage("old", [text("a")], { kind: "pi-ai", version: 1, blocks: [] })).api).toBe("turnlog-foreign")
    expect(recover(assistantMessage("none", [text("a")])).api).toBe("turnlog-foreign")
    expect(degraded.map(([id, e]) => [id, e._tag, e.reason])).toEqual([["old", "InvalidReplayState", "legacy flat version-1 pi-ai state"]])
  })

  it("through the reconstructor: a legacy message goes neutral with one diagnostic, the rest native", async () => {
    const original = piAssistant([{ type: "text", text: "fresh", textSignature: "ts" }])
    const messages = [
      assistantMessage("a1", [text("old")], {
        kind: "pi-ai",
        version: 1,
        api: "anthropic-messages",
        provider: "acme",
        model: "m1",
        stopReason: "stop",
        blocks: [],
      }),
      assistantMessage("a2", durableBlocks(original), PiAiReplay.toReplayState(original)),
    ]
    const seen: Array<ReplayDiagnostic> = []
    const natives = await Effect.runPromise(History.reconstruct(messages, PiAiReplay.codec, {
      targetRoute: "acme/m1",
      report: (ds) => Effect.sync(() => void seen.push(...ds)),
    }))
    expect(natives.map((n) => n.api)).toEqual(["turnlog-foreign", "anthropic-messages"])
    expect(natives[1]).toEqual(original)
    expect(seen).toEqual([{
      code: "INVALID_REPLAY_STATE",
      messageId: "a1",
      historicalRoute: "acme/m1",
      targetRoute: "acme/m1",
      reason: "legacy flat version-1 pi-ai state",
    }])
  })
})
