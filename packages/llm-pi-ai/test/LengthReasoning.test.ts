/**
 * A max-tokens reply whose kept blocks end in signed reasoning (the cut tool
 * call after it dropped, or the budget spent thinking) is not replayed in a
 * form the provider refuses on every later request — Anthropic: "The final
 * block in an assistant message cannot be `thinking`"; OpenAI Responses: a
 * reasoning item "provided without its required following item". The message
 * degrades to provider-neutral content instead.
 */
import { describe, expect, it } from "@effect/vitest"
import { Loopback } from "@turnlog/testkit"
import { harness, request, stored, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

const cut = { type: "tool-call", id: "call_cut9", name: "write_file", arguments: '{"path":"out', complete: false } as const

/** Streams `reply`, stores it as the agent loop does, and returns the continuation's request body. */
const continuation = async (api: "anthropic-messages" | "openai-responses", reply: Loopback.ReplyInput) => {
  const h = await harness(loopback.server)
  loopback.server.enqueue(reply, { blocks: [{ type: "text", text: "ok" }] })
  const before = loopback.server.requests().length
  const first = await h.collect(request(api, [user("u1", "Write the file")]))
  const { assembled, message } = stored("a1", api, first)
  expect(assembled.finish).toEqual({ kind: "max-tokens" })
  expect(assembled.blocks.map((b) => b.type)).toEqual(["reasoning"])
  await h.collect(request(api, [user("u1", "Write the file"), message, user("u2", "go on")]))
  return loopback.server.requests()[before + 1]!.body as any
}

describe("anthropic-messages: a max-tokens reply that ends in thinking", () => {
  const reasoning = { type: "reasoning", text: "I will write it.", signature: "EqQBCkgIBRgCIkDsig" } as const

  it.each(
    [
      ["thinking, then a tool call cut by the limit", { blocks: [reasoning, cut], finish: "max-tokens" }],
      ["only thinking (the budget went on reasoning)", { blocks: [reasoning], finish: "max-tokens" }],
    ] as const,
  )("%s: no assistant turn on the wire ends with a thinking block", async (_name, reply) => {
    const body = await continuation("anthropic-messages", reply as Loopback.ReplyInput)
    for (const message of body.messages.filter((m: any) => m.role === "assistant")) {
      const last = message.content.at(-1)
      expect(last?.type).not.toBe("thinking")
      expect(last?.type).not.toBe("redacted_thinking")
    }
  })
})

describe("anthropic-messages: signed thinking followed only by blank text", () => {
  // The converter leaves blank text out of the request, so thinking would be
  // sent last all the same: the message degrades, and with nothing neutral to
  // send (its thinking is not), the request goes on without it.
  const reasoning = { type: "reasoning", text: "I will write it.", signature: "EqQBCkgIBRgCIkDsig" } as const

  it.each(
    [
      ["max-tokens: thinking, an empty text block, a tool call cut by the limit", [reasoning, { type: "text", text: "" }, cut], "max-tokens"],
      ["max-tokens: thinking, then a text block cut as it began", [reasoning, { type: "text", text: "" }], "max-tokens"],
      ["stop: thinking, then a text block of blank lines", [reasoning, { type: "text", text: "\n\n" }], "stop"],
    ] as const,
  )("%s: degraded with one diagnostic, no turn ending in thinking", async (_name, blocks, finish) => {
    const h = await harness(loopback.server)
    loopback.server.enqueue({ blocks: [...blocks], finish } as Loopback.ReplyInput, { blocks: [{ type: "text", text: "ok" }] })
    const before = loopback.server.requests().length
    const { message } = stored("a1", "anthropic-messages", await h.collect(request("anthropic-messages", [user("u1", "Write it")])))
    await h.collect(request("anthropic-messages", [user("u1", "Write it"), message, user("u2", "go on")]))
    const body = loopback.server.requests()[before + 1]!.body as { messages: Array<{ role: string; content: Array<{ text?: string }> }> }
    expect(body.messages.map((m) => [m.role, m.content.map((c) => c.text)])).toEqual([["user", ["Write it"]], ["user", ["go on"]]])
    expect((await h.diagnostics()).map((d) => [d.messageId, d.reason])).toEqual([
      ["a1", "block 0: anthropic-messages cannot replay signed reasoning as the message's last block"],
    ])
  })

  it("thinking followed by text that says something replays natively, signature and all", async () => {
    const h = await harness(loopback.server)
    loopback.server.enqueue({ blocks: [reasoning, { type: "text", text: "Done." }] }, { blocks: [{ type: "text", text: "ok" }] })
    const before = loopback.server.requests().length
    const { message } = stored("a1", "anthropic-messages", await h.collect(request("anthropic-messages", [user("u1", "Write it")])))
    await h.collect(request("anthropic-messages", [user("u1", "Write it"), message, user("u2", "go on")]))
    const body = loopback.server.requests()[before + 1]!.body as { messages: Array<{ role: string; content: Array<unknown> }> }
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "I will write it.", signature: "EqQBCkgIBRgCIkDsig" },
        { type: "text", text: "Done." },
      ],
    })
    expect(await h.diagnostics()).toEqual([])
  })
})

describe("openai-responses: a max-tokens reply that ends in reasoning", () => {
  const reasoning = { type: "reasoning", text: "I will write it.", signature: "gAAAAABenc", id: "rs_len1" } as const

  it.each(
    [
      ["reasoning, then a tool call cut by the limit", { blocks: [reasoning, cut], finish: "max-tokens" }],
      ["only reasoning (the budget went on reasoning)", { blocks: [reasoning], finish: "max-tokens" }],
    ] as const,
  )("%s: every reasoning item is followed by an output item of its response", async (_name, reply) => {
    const body = await continuation("openai-responses", reply as Loopback.ReplyInput)
    const input: Array<any> = body.input
    input.forEach((item, i) => {
      if (item.type !== "reasoning") return
      const next = input[i + 1]
      expect(next?.type === "message" && next.role === "assistant" || next?.type === "function_call").toBe(true)
    })
  })
})
