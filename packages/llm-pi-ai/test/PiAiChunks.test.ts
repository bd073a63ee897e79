import { describe, expect, it } from "@effect/vitest"
import type { AssistantMessage, AssistantMessageEvent } from "@earendil-works/pi-ai"
import { PiAiChunks } from "@turnlog/llm-pi-ai"
import { piAssistant, toolCall, zeroUsage } from "./fixtures.js"

const run = (events: ReadonlyArray<AssistantMessageEvent>, options: PiAiChunks.Options = {}, ended = true) =>
  PiAiChunks.all(ended ? [...events, PiAiChunks.sourceEnd] : events, options)

const usage = { ...zeroUsage(), input: 120, output: 45, cacheRead: 100, totalTokens: 265 }

/** A thinking block, a text block and a tool call, streamed as pi-ai streams them. */
const fullReply = (final: AssistantMessage): Array<AssistantMessageEvent> => {
  const p = final
  return [
    { type: "start", partial: p },
    { type: "thinking_start", contentIndex: 0, partial: p },
    { type: "thinking_delta", contentIndex: 0, delta: "Let me ", partial: p },
    { type: "thinking_delta", contentIndex: 0, delta: "look.", partial: p },
    { type: "thinking_end", contentIndex: 0, content: "Let me look.", partial: p },
    { type: "text_start", contentIndex: 1, partial: p },
    { type: "text_delta", contentIndex: 1, delta: "Reading it.", partial: p },
    { type: "text_end", contentIndex: 1, content: "Reading it.", partial: p },
    { type: "toolcall_start", contentIndex: 2, partial: p },
    { type: "toolcall_delta", contentIndex: 2, delta: '{"path": ', partial: p },
    { type: "toolcall_delta", contentIndex: 2, delta: '"a.txt"}', partial: p },
    { type: "toolcall_end", contentIndex: 2, toolCall: toolCall("toolu_1", "read", { path: "a.txt" }), partial: p },
    { type: "done", reason: "toolUse", message: final },
  ]
}

describe("PiAiChunks: pi-ai events → chunks", () => {
  it("maps blocks by contentIndex, re-stringifies tool arguments, ends with usage then a finish carrying the v2 envelope", () => {
    const final = piAssistant([
      { type: "thinking", thinking: "Let me look.", thinkingSignature: "sig-1" },
      { type: "text", text: "Reading it." },
      toolCall("toolu_1", "read", { path: "a.txt" }),
    ], { stopReason: "toolUse", usage, responseId: "msg_1" })
    expect(run(fullReply(final))).toStrictEqual([
      { type: "block-start", index: 0, blockType: "reasoning" },
      { type: "reasoning-delta", index: 0, text: "Let me " },
      { type: "reasoning-delta", index: 0, text: "look." },
      { type: "block-end", index: 0, block: { type: "reasoning", text: "Let me look." } },
      { type: "block-start", index: 1, blockType: "text" },
      { type: "text-delta", index: 1, text: "Reading it." },
      { type: "block-end", index: 1, block: { type: "text", text: "Reading it." } },
      { type: "block-start", index: 2, blockType: "tool-call" },
      { type: "tool-call-delta", index: 2, id: "toolu_1", name: "read", argumentsDelta: '{"path": ' },
      { type: "tool-call-delta", index: 2, id: "toolu_1", argumentsDelta: '"a.txt"}' },
      { type: "block-end", index: 2, block: { type: "tool-call", id: "toolu_1", name: "read", arguments: '{"path":"a.txt"}' } },
      { type: "usage", usage: { inputTokens: 120, outputTokens: 45, cacheReadTokens: 100 } },
      {
        type: "finish",
        reason: { kind: "tool-calls" },
        replayState: {
          response: {
            kind: "pi-ai",
            version: 2,
            api: "anthropic-messages",
            provider: "acme",
            model: "m1",
            stopReason: "toolUse",
            responseId: "msg_1",
          },
          blocks: [{ type: "reasoning", thinkingSignature: "sig-1" }, { type: "text" }, { type: "tool-call" }],
        },
      },
    ])
  })

  it("stop → stop; length → max-tokens, a truncated tool call left open, one envelope entry per native block", () => {
    const stopped = piAssistant([{ type: "text", text: "hi" }])
    const p = stopped
    const stop = run([
      { type: "text_start", contentIndex: 0, partial: p },
      { type: "text_end", contentIndex: 0, content: "hi", partial: p },
      { type: "done", reason: "stop", message: stopped },
    ])
    expect(stop.at(-1)).toMatchObject({ type: "finish", reason: { kind: "stop" } })

    const cut = piAssistant([{ type: "text", text: "Writing" }, toolCall("c1", "write", {})], { stopReason: "length" })
    const q = cut
    const length = run([
      { type: "text_start", contentIndex: 0, partial: q },
      { type: "text_delta", contentIndex: 0, delta: "Writing", partial: q },
      { type: "text_end", contentIndex: 0, content: "Writing", partial: q },
      { type: "toolcall_start", contentIndex: 1, partial: q },
      { type: "toolcall_delta", contentIndex: 1, delta: '{"path":"a","content":"abc', partial: q },
      { type: "done", reason: "length", message: cut },
    ])
    expect(length.filter((c) => c.type === "block-end").map((c) => c.index)).toEqual([0])
    expect(length.at(-1)).toStrictEqual({
      type: "finish",
      reason: { kind: "max-tokens" },
      replayState: {
        response: { kind: "pi-ai", version: 2, api: "anthropic-messages", provider: "acme", model: "m1", stopReason: "length" },
        blocks: [{ type: "text" }, { type: "tool-call" }],
      },
    })
  })

  it("a block pi-ai never started or ended is started and ended from the final message", () => {
    const final = piAssistant([{ type: "text", text: "a" }, { type: "text", text: "b" }])
    const chunks = run([
      { type: "text_start", contentIndex: 0, partial: final },
      { type: "text_delta", contentIndex: 0, delta: "a", partial: final },
      { type: "done", reason: "stop", message: final },
    ])
    expect(chunks.slice(0, 5)).toStrictEqual([
      { type: "block-start", index: 0, blockType: "text" },
      { type: "text-delta", index: 0, text: "a" },
      { type: "block-end", index: 0, block: { type: "text", text: "a" } },
      { type: "block-start", index: 1, blockType: "text" },
      { type: "block-end", index: 1, block: { type: "text", text: "b" } },
    ])
  })

  it("an empty stop response is an EMPTY_RESPONSE error without replay state", () => {
    const empty = piAssistant([], { usage })
    expect(run([{ type: "done", reason: "stop", message: empty }])).toStrictEqual([
      { type: "usage", usage: { inputTokens: 120, outputTokens: 45, cacheReadTokens: 100 } },
      { type: "finish", reason: { kind: "error", failure: { code: "EMPTY_RESPONSE", message: "the model returned an empty response" } } },
    ])
  })

  it("an error event → usage and a classified error finish, no replay state", () => {
    const failed = piAssistant([], { stopReason: "error", errorMessage: "429 Too many requests", usage })
    const chunks = run([{ type: "error", reason: "error", error: failed }], {
      response: () => ({ status: 429, headers: { "retry-after": "3", "request-id": "req_42" } }),
    })
    expect(chunks).toStrictEqual([
      { type: "usage", usage: { inputTokens: 120, outputTokens: 45, cacheReadTokens: 100 } },
      {
        type: "finish",
        reason: {
          kind: "error",
          failure: { code: "RATE_LIMIT", message: "429 Too many requests", status: 429, retryAfterMs: 3000, requestId: "req_42" },
        },
      },
    ])
  })

  it("a context-overflow message is CONTEXT_WINDOW_EXCEEDED even on a 400", () => {
    const failed = piAssistant([], { stopReason: "error", errorMessage: "400 prompt is too long: 210000 tokens > 200000 maximum" })
    const chunks = run([{ type: "error", reason: "error", error: failed }], { response: () => ({ status: 400, headers: {} }) })
    expect(chunks.at(-1)).toMatchObject({ reason: { kind: "error", failure: { code: "CONTEXT_WINDOW_EXCEEDED", status: 400 } } })
  })

  it("an aborted error event → an aborted finish", () => {
    const aborted = piAssistant([], { stopReason: "aborted", errorMessage: "Request was aborted" })
    expect(run([{ type: "error", reason: "aborted", error: aborted }]).at(-1)).toStrictEqual({
      type: "finish",
      reason: { kind: "aborted", failure: { code: "ABORTED", message: "Request was aborted" } },
    })
  })

  it("a source that ends without done or error → STREAM_CLOSED; a throw → a classified error; nothing after a finish", () => {
    const p = piAssistant([{ type: "text", text: "par" }])
    const closed = run([
      { type: "text_start", contentIndex: 0, partial: p },
      { type: "text_delta", contentIndex: 0, delta: "par", partial: p },
    ])
    expect(closed.at(-1)).toStrictEqual({
      type: "finish",
      reason: { kind: "error", failure: { code: "STREAM_CLOSED", message: "the provider stream ended without a result" } },
    })

    const [failed, chunks] = PiAiChunks.step(PiAiChunks.initial(), PiAiChunks.sourceFailed("fetch failed"))
    expect(chunks).toStrictEqual([
      { type: "finish", reason: { kind: "error", failure: { code: "TRANSPORT", message: "fetch failed" } } },
    ])
    expect(PiAiChunks.step(failed, { type: "done", reason: "stop", message: p })).toStrictEqual([failed, []])
    expect(PiAiChunks.step(failed, PiAiChunks.sourceEnd)).toStrictEqual([failed, []])
    expect(PiAiChunks.step(failed, PiAiChunks.sourceFailed("again"))).toStrictEqual([failed, []])
  })

  it("states are values: stepping a state never changes it, so an older state steps the same again", () => {
    const bad = { ...toolCall("c1", "read", {}), argumentsError: "not JSON" }
    const final = piAssistant([bad], { stopReason: "toolUse" })
    const [started] = PiAiChunks.step(PiAiChunks.initial({ replyTag: "t" }), { type: "toolcall_start", contentIndex: 0, partial: final })
    const delta = { type: "toolcall_delta", contentIndex: 0, delta: "{path: a}", partial: final } as const
    const [once] = PiAiChunks.step(started, delta)
    const [twice] = PiAiChunks.step(once, delta)
    const end = { type: "toolcall_end", contentIndex: 0, toolCall: bad, partial: final } as const
    const argumentsOf = (state: PiAiChunks.State) => (PiAiChunks.step(state, end)[1][0] as any).block.arguments
    expect([argumentsOf(started), argumentsOf(once), argumentsOf(twice), argumentsOf(once)])
      .toStrictEqual(["{}", "{path: a}", "{path: a}{path: a}", "{path: a}"])
    expect(PiAiChunks.isFinished(once)).toBe(false)
  })

  it("a tool call whose arguments pi-ai could not parse keeps the text the model sent", () => {
    const bad = { ...toolCall("c1", "read", {}), argumentsError: "not JSON" }
    const final = piAssistant([bad], { stopReason: "toolUse" })
    const chunks = run([
      { type: "toolcall_start", contentIndex: 0, partial: final },
      { type: "toolcall_delta", contentIndex: 0, delta: "{path: a}", partial: final },
      { type: "toolcall_end", contentIndex: 0, toolCall: bad, partial: final },
      { type: "done", reason: "toolUse", message: final },
    ])
    expect(chunks.find((c) => c.type === "block-end")).toStrictEqual({
      type: "block-end",
      index: 0,
      block: { type: "tool-call", id: "c1", name: "read", arguments: "{path: a}" },
    })
  })

  it("redacts a secret from failure messages", () => {
    const failed = piAssistant([], { stopReason: "error", errorMessage: "401 invalid key sk-secret-123" })
    const chunks = run([{ type: "error", reason: "error", error: failed }], {
      redact: (t) => t.split("sk-secret-123").join("[redacted]"),
    })
    expect(chunks.at(-1)).toMatchObject({ reason: { failure: { code: "AUTH", message: "401 invalid key [redacted]", status: 401 } } })
  })

  it("usage: zero cache counts omitted, reasoning kept when reported", () => {
    expect(PiAiChunks.toUsage({ ...zeroUsage(), input: 3, output: 4, reasoning: 2 })).toStrictEqual({
      inputTokens: 3,
      outputTokens: 4,
      reasoningTokens: 2,
    })
    expect(PiAiChunks.toUsage({ ...zeroUsage(), input: 3, output: 4, cacheWrite: 9 })).toStrictEqual({
      inputTokens: 3,
      outputTokens: 4,
      cacheWriteTokens: 9,
    })
  })
})
