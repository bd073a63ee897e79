/**
 * The adapter over the real wire formats (the loopback provider, each api
 * served by its real AI SDK provider package): signatures survive a
 * continuation verbatim; a reply cut at the output limit continues with its
 * text and no trace of the cut tool call; a message of another adapter's kind
 * degrades to provider-neutral content with one diagnostic.
 */
import { describe, expect, it } from "@effect/vitest"
import { makeToolResult, type Message, MessageId } from "@turnlog/protocol"
import type { Loopback } from "@turnlog/testkit"
import { type Api, APIS, finishOf, harness, MODEL, providerOf, request, stored, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

interface Signed {
  readonly reply: Loopback.ReplyInput
  /** The signatures the second request must carry, verbatim. */
  readonly signatures: ReadonlyArray<string>
  /** The assistant turn of a request body, in the api's own shape. */
  readonly assistantTurn: (body: any) => unknown
  /** That turn in the continuation: the first reply, replayed natively. */
  readonly expected: unknown
}

const call = { type: "tool-call", id: "call_read1", name: "read_file", arguments: '{"path":"notes.md"}' } as const

const signed: Record<Api, Signed> = {
  // The AI SDK's chat-completions providers read reasoning as text only (no signature to keep):
  // it goes back as `reasoning_content`, the field compatible servers read.
  "openai-completions": {
    reply: { blocks: [{ type: "reasoning", text: "Check the file." }, { type: "text", text: "Reading." }, call], finish: "tool-calls" },
    signatures: [],
    assistantTurn: (body) => body.messages.filter((m: any) => m.role === "assistant"),
    expected: [{
      role: "assistant",
      content: "Reading.",
      reasoning_content: "Check the file.",
      tool_calls: [{ id: "call_read1", type: "function", function: { name: "read_file", arguments: '{"path":"notes.md"}' } }],
    }],
  },
  "openai-responses": {
    reply: {
      blocks: [
        { type: "reasoning", text: "Check the file.", signature: "gAAAAABencryptedReasoning", id: "rs_0a1b2c" },
        { type: "text", text: "Reading.", id: "msg_0a1b2c" },
        { ...call, itemId: "fc_0a1b2c" },
      ],
      finish: "tool-calls",
    },
    signatures: ["gAAAAABencryptedReasoning", "rs_0a1b2c", "msg_0a1b2c"],
    assistantTurn: (body) => body.input.filter((item: any) => item.role !== "user" && item.type !== "function_call_output"),
    expected: [
      {
        type: "reasoning",
        id: "rs_0a1b2c",
        encrypted_content: "gAAAAABencryptedReasoning",
        summary: [{ type: "summary_text", text: "Check the file." }],
      },
      { role: "assistant", content: [{ type: "output_text", text: "Reading." }], id: "msg_0a1b2c" },
      { type: "function_call", call_id: "call_read1", name: "read_file", arguments: '{"path":"notes.md"}' },
    ],
  },
  "anthropic-messages": {
    reply: {
      blocks: [{ type: "reasoning", text: "Check the file.", signature: "EqQBCkgIBRgCIkDanthropicSig" }, { type: "text", text: "Reading." }, call],
      finish: "tool-calls",
    },
    signatures: ["EqQBCkgIBRgCIkDanthropicSig"],
    assistantTurn: (body) => body.messages.filter((m: any) => m.role === "assistant"),
    expected: [{
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Check the file.", signature: "EqQBCkgIBRgCIkDanthropicSig" },
        { type: "text", text: "Reading." },
        { type: "tool_use", id: "call_read1", name: "read_file", input: { path: "notes.md" } },
      ],
    }],
  },
  "google-generative-ai": {
    reply: {
      blocks: [
        { type: "reasoning", text: "Check the file.", signature: "c2lnLXJlYXNvbmluZw==" },
        { type: "text", text: "Reading." },
        { ...call, signature: "c2lnLWNhbGw=" },
      ],
      finish: "tool-calls",
    },
    signatures: ["c2lnLXJlYXNvbmluZw==", "c2lnLWNhbGw="],
    assistantTurn: (body) => body.contents.filter((c: any) => c.role === "model"),
    expected: [{
      role: "model",
      parts: [
        { text: "Check the file.", thought: true, thoughtSignature: "c2lnLXJlYXNvbmluZw==" },
        { text: "Reading." },
        { functionCall: { id: "call_read1", name: "read_file", args: { path: "notes.md" } }, thoughtSignature: "c2lnLWNhbGw=" },
      ],
    }],
  },
}

describe.each(APIS)("%s over the loopback", (api) => {
  it("a continuation carries the first reply's signatures verbatim", async () => {
    const h = await harness(loopback.server)
    const { reply, signatures, assistantTurn } = signed[api]
    loopback.server.enqueue(reply, { blocks: [{ type: "text", text: "The notes say hi." }] })
    const before = loopback.server.requests().length

    const first = await h.collect(request(api, [user("u1", "Read my notes")]))
    expect(finishOf(first)).toMatchObject({ type: "finish", reason: { kind: "tool-calls" }, replayState: { response: { kind: "ai-sdk", version: 1 } } })
    const { assembled, message } = stored("a1", api, first)
    expect(assembled.blocks).toEqual([
      { type: "reasoning", text: "Check the file." },
      { type: "text", text: "Reading." },
      { type: "tool-call", id: "call_read1", name: "read_file", arguments: '{"path":"notes.md"}' },
    ])

    const second = await h.collect(request(api, [
      user("u1", "Read my notes"),
      message,
      makeToolResult({ id: MessageId.make("t1"), callId: "call_read1", content: "hi" }),
    ]))
    expect(finishOf(second)).toMatchObject({ type: "finish", reason: { kind: "stop" } })

    const body = loopback.server.requests()[before + 1]!.body
    const turn = JSON.stringify(assistantTurn(body))
    for (const signature of signatures) expect(turn).toContain(JSON.stringify(signature))
    expect(assistantTurn(body)).toEqual(signed[api].expected)
    expect(JSON.stringify(body)).toContain('"hi"')
    expect(await h.diagnostics()).toEqual([])
  })

  it("a length reply keeps the text only, stores one text entry, and continues with no tool call in any form", async () => {
    const h = await harness(loopback.server)
    loopback.server.enqueue({
      blocks: [
        { type: "text", text: "Writing the file now." },
        { type: "tool-call", id: "call_cut9", name: "write_file", arguments: '{"path":"out.txt","content":"hel', complete: false },
      ],
      finish: "max-tokens",
    }, { blocks: [{ type: "text", text: "Continuing." }] })
    const before = loopback.server.requests().length

    const first = await h.collect(request(api, [user("u1", "Write the file")]))
    // Streamed: the text and the cut call, each with its entry; kept: the text and its entry.
    expect(first.filter((c) => c.type === "block-start").map((c) => c.type === "block-start" && c.blockType)).toEqual(["text", "tool-call"])
    expect((finishOf(first) as { replayState?: { blocks?: ReadonlyArray<unknown> } }).replayState?.blocks).toHaveLength(2)
    const { assembled, message } = stored("a1", api, first)
    expect(assembled.finish).toEqual({ kind: "max-tokens" })
    expect(assembled.blocks).toEqual([{ type: "text", text: "Writing the file now." }])
    expect(assembled.replayState?.blocks?.map((b) => (b as { type: string }).type)).toEqual(["text"])

    const second = await h.collect(request(api, [user("u1", "Write the file"), message, user("u2", "go on")]))
    expect(finishOf(second)).toMatchObject({ type: "finish", reason: { kind: "stop" } })
    const wire = JSON.stringify(loopback.server.requests()[before + 1]!.body)
    expect(wire).toContain("Writing the file now.")
    for (const trace of ["call_cut9", "write_file", "out.txt", 'hel"']) expect(wire).not.toContain(trace)
    expect(await h.diagnostics()).toEqual([])
  })

  it("a pi-ai message goes as provider-neutral content with one diagnostic, and the request succeeds", async () => {
    const h = await harness(loopback.server)
    loopback.server.enqueue({ blocks: [{ type: "text", text: "Now this." }] }, { blocks: [{ type: "text", text: "And this." }] })
    const before = loopback.server.requests().length
    const piAi: Message = {
      id: MessageId.make("pi1"),
      role: "assistant",
      content: [{ type: "reasoning", text: "Hidden." }, { type: "text", text: "An earlier answer." }],
      source: {
        kind: "model",
        provider: providerOf(api),
        model: MODEL,
        replayState: {
          response: { kind: "pi-ai", version: 2, api, provider: providerOf(api), model: MODEL, stopReason: "stop" },
          blocks: [{ type: "reasoning", thinkingSignature: "c2lnLW9mLXBpLWFp" }, { type: "text" }],
        },
      },
    }
    const history = [user("u1", "Hi"), piAi, user("u2", "And now?")]
    const chunks = await h.collect(request(api, history, { sessionId: "s-foreign" as never }))
    expect(finishOf(chunks)).toMatchObject({ type: "finish", reason: { kind: "stop" } })
    const wire = JSON.stringify(loopback.server.requests()[before]!.body)
    expect(wire).toContain("An earlier answer.")
    expect(wire).not.toContain("c2lnLW9mLXBpLWFp")
    expect(wire).not.toContain("Hidden.")
    // The same session again: the message is not reported a second time.
    await h.collect(request(api, [...history, stored("a2", api, chunks).message, user("u3", "More?")], { sessionId: "s-foreign" as never }))
    expect(await h.diagnostics()).toEqual([{
      code: "INVALID_REPLAY_STATE",
      sessionId: "s-foreign",
      messageId: "pi1",
      historicalRoute: `${providerOf(api)}/${MODEL}`,
      targetRoute: `${providerOf(api)}/${MODEL}`,
      reason: 'replay state kind "pi-ai" is not "ai-sdk"',
    }])
  })
})

describe("redacted reasoning", () => {
  const cases = [
    {
      api: "anthropic-messages" as const,
      turn: (body: any) => body.messages.filter((m: any) => m.role === "assistant"),
      expected: [{ role: "assistant", content: [{ type: "redacted_thinking", data: "EmwKAhgBEgyRedactedData" }, { type: "text", text: "Done." }] }],
    },
    {
      api: "openai-responses" as const,
      turn: (body: any) => body.input.filter((item: any) => item.type === "reasoning"),
      expected: [{ type: "reasoning", id: "rs_redacted1", encrypted_content: "EmwKAhgBEgyRedactedData", summary: [] }],
    },
  ]
  it.each(cases)("$api: the withheld reasoning's data goes back verbatim", async ({ api, turn, expected }) => {
    const h = await harness(loopback.server)
    loopback.server.enqueue(
      { blocks: [{ type: "redacted-reasoning", data: "EmwKAhgBEgyRedactedData", id: "rs_redacted1" }, { type: "text", text: "Done." }] },
      { blocks: [{ type: "text", text: "Again." }] },
    )
    const first = await h.collect(request(api, [user("u1", "Go")]))
    const { assembled, message } = stored("a1", api, first)
    expect(assembled.blocks).toEqual([{ type: "reasoning", text: "" }, { type: "text", text: "Done." }])
    await h.collect(request(api, [user("u1", "Go"), message, user("u2", "Again")]))
    expect(turn(loopback.server.requests().at(-1)!.body)).toEqual(expected)
    expect(await h.diagnostics()).toEqual([])
  })
})
