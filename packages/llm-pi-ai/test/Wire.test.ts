/**
 * The adapter over the real wire formats (the loopback provider), for each api:
 * signatures survive a continuation verbatim; a reply cut at the output limit
 * continues with its text and no trace of the cut tool call; a legacy message
 * degrades to provider-neutral content with one diagnostic.
 */
import { describe, expect, it } from "@effect/vitest"
import { makeToolResult, MessageId, type StreamChunk } from "@turnlog/protocol"
import { Loopback } from "@turnlog/testkit"
import { type Api, APIS, harness, MODEL, providerOf, request, stored, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

const finishOf = (chunks: ReadonlyArray<StreamChunk>) => chunks.at(-1)

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
  "openai-completions": {
    reply: {
      blocks: [{ type: "reasoning", text: "Check the file.", signature: "ErUBCkYIBxgCIkDcompletions" }, { type: "text", text: "Reading." }, call],
      finish: "tool-calls",
    },
    signatures: ["ErUBCkYIBxgCIkDcompletions"],
    assistantTurn: (body) => body.messages.filter((m: any) => m.role === "assistant"),
    expected: [{
      role: "assistant",
      content: "Reading.",
      tool_calls: [{ id: "call_read1", type: "function", function: { name: "read_file", arguments: '{"path":"notes.md"}' } }],
      reasoning_details: [{
        type: "reasoning.text",
        text: "Check the file.",
        format: "anthropic-claude-v1",
        index: 0,
        signature: "ErUBCkYIBxgCIkDcompletions",
      }],
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
    signatures: ["gAAAAABencryptedReasoning", "rs_0a1b2c", "msg_0a1b2c", "fc_0a1b2c"],
    assistantTurn: (body) => body.input.filter((item: any) => item.role !== "user" && item.type !== "function_call_output"),
    expected: [
      {
        id: "rs_0a1b2c",
        type: "reasoning",
        summary: [{ type: "summary_text", text: "Check the file." }],
        encrypted_content: "gAAAAABencryptedReasoning",
      },
      {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "Reading.", annotations: [] }],
        status: "completed",
        id: "msg_0a1b2c",
      },
      { type: "function_call", id: "fc_0a1b2c", call_id: "call_read1", name: "read_file", arguments: '{"path":"notes.md"}' },
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
        { functionCall: { name: "read_file", args: { path: "notes.md" } }, thoughtSignature: "c2lnLWNhbGw=" },
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
    expect(finishOf(first)).toMatchObject({ type: "finish", reason: { kind: "tool-calls" } })
    const { assembled, message } = stored("a1", api, first)
    expect(assembled.blocks.map((b) => b.type)).toEqual(["reasoning", "text", "tool-call"])
    const toolCall = assembled.blocks[2]!
    expect(toolCall).toMatchObject({ type: "tool-call", name: "read_file", arguments: '{"path":"notes.md"}' })

    const callId = toolCall.type === "tool-call" ? toolCall.id : ""
    const second = await h.collect(request(api, [
      user("u1", "Read my notes"),
      message,
      makeToolResult({ id: MessageId.make("t1"), callId, content: "hi" }),
    ]))
    expect(finishOf(second)).toMatchObject({ type: "finish", reason: { kind: "stop" } })

    const body = loopback.server.requests()[before + 1]!.body
    const turn = JSON.stringify(assistantTurn(body))
    for (const signature of signatures) expect(turn).toContain(signature)
    expect(assistantTurn(body)).toEqual(signed[api].expected)
    expect(turn).toContain("read_file")
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
    const { assembled, message } = stored("a1", api, first)
    expect(assembled.finish).toEqual({ kind: "max-tokens" })
    expect(assembled.blocks).toEqual([{ type: "text", text: "Writing the file now." }])
    expect(assembled.replayState?.blocks?.map((b) => (b as { type: string }).type)).toEqual(["text"])

    const second = await h.collect(request(api, [user("u1", "Write the file"), message, user("u2", "go on")]))
    expect(finishOf(second)).toMatchObject({ type: "finish", reason: { kind: "stop" } })
    const wire = JSON.stringify(loopback.server.requests()[before + 1]!.body)
    expect(wire).toContain("Writing the file now.")
    for (const trace of ["call_cut9", "write_file", "out.txt", "hel"]) expect(wire).not.toContain(trace)
    expect(await h.diagnostics()).toEqual([])
  })

  it("a legacy flat version-1 message goes as provider-neutral content with one diagnostic, and the request succeeds", async () => {
    const h = await harness(loopback.server)
    loopback.server.enqueue({ blocks: [{ type: "text", text: "Now this." }] })
    const before = loopback.server.requests().length
    const legacy = {
      id: MessageId.make("old1"),
      role: "assistant" as const,
      content: [{ type: "text" as const, text: "An earlier answer." }],
      source: {
        kind: "model" as const,
        provider: providerOf(api),
        model: MODEL,
        replayState: { kind: "pi-ai", version: 1, api, provider: providerOf(api), model: MODEL, stopReason: "stop", blocks: [{ type: "text" }] },
      },
    }
    const chunks = await h.collect(request(api, [user("u1", "Hi"), legacy, user("u2", "And now?")], {
      sessionId: "s-legacy" as never,
    }))
    expect(finishOf(chunks)).toMatchObject({ type: "finish", reason: { kind: "stop" } })
    expect(JSON.stringify(loopback.server.requests()[before]!.body)).toContain("An earlier answer.")
    expect(await h.diagnostics()).toEqual([{
      code: "INVALID_REPLAY_STATE",
      sessionId: "s-legacy",
      messageId: "old1",
      historicalRoute: `${providerOf(api)}/${MODEL}`,
      targetRoute: `${providerOf(api)}/${MODEL}`,
      reason: "legacy flat version-1 pi-ai state",
    }])
  })
})
