/** The Anthropic Messages wire, proven by pi-ai's own anthropic-messages provider. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Loopback } from "../src/index.js"
import { API_KEY, MODEL_ID, run, toolCallOf, toolResult, usage, user } from "./fixtures/PiAi.js"

const API = "anthropic-messages"

describe("anthropic-messages over the loopback", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  const signed: Loopback.ReplyInput = {
    blocks: [
      { type: "reasoning", text: "The user wants the file read.", signature: "EqQBCkgIARABGAIiQL2sig==" },
      { type: "redacted-reasoning", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" },
      { type: "text", text: "I'll read it now." },
      { type: "tool-call", id: "toolu_01A09q90qw90lq917835lq9", name: "read_file", arguments: '{"path":"/tmp/notes.md"}' },
    ],
    finish: "tool-calls",
    usage: { input: 1200, output: 87 },
    responseId: "msg_01XFDUDYJgAACzvnptvVoYEL",
  }

  it("streams thinking with its signature, redacted thinking, text and a tool call as pi-ai reads them", async () => {
    server.enqueue(signed)
    const { message, events } = await run(server, API, [user("Read my notes")])

    expect(message.content).toEqual([
      { type: "thinking", thinking: "The user wants the file read.", thinkingSignature: "EqQBCkgIARABGAIiQL2sig==" },
      {
        type: "thinking",
        thinking: "[Reasoning redacted]",
        thinkingSignature: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP",
        redacted: true,
      },
      { type: "text", text: "I'll read it now." },
      { type: "toolCall", id: "toolu_01A09q90qw90lq917835lq9", name: "read_file", arguments: { path: "/tmp/notes.md" } },
    ])
    expect(message.stopReason).toBe("toolUse")
    expect(message.rawStopReason).toBe("tool_use")
    expect(message.responseId).toBe("msg_01XFDUDYJgAACzvnptvVoYEL")
    expect(message.responseModel).toBeUndefined()
    expect(message.usage).toMatchObject(usage(1200, 87))
    // Streamed, not delivered at once: several deltas per block.
    expect(events.filter((e) => e.type === "text_delta").map((e) => e.type === "text_delta" && e.delta))
      .toEqual(["I'll", " read", " it", " now."])

    const [request] = server.requests().slice(-1)
    expect(request).toMatchObject({
      method: "POST",
      path: "/v1/messages",
      query: { beta: "true" },
      api: API,
      model: MODEL_ID,
      status: 200,
      outcome: "completed",
      aborted: false,
    })
    expect(request!.headers["x-api-key"]).toBe(API_KEY)
    expect(request!.body).toMatchObject({ model: MODEL_ID, stream: true, messages: [{ role: "user" }] })
  })

  it("a continuation sends the signature and the redacted data back verbatim", async () => {
    server.enqueue(signed, { blocks: [{ type: "text", text: "Done." }] })
    const first = await run(server, API, [user("Read my notes")])
    const call = toolCallOf(first.message)
    const second = await run(server, API, [user("Read my notes"), first.message, toolResult(call, "# notes")])

    expect(second.message.content).toEqual([{ type: "text", text: "Done." }])
    expect(second.message.stopReason).toBe("stop")
    const body = server.requests().at(-1)!.body as { messages: Array<{ role: string; content: unknown }> }
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "The user wants the file read.", signature: "EqQBCkgIARABGAIiQL2sig==" },
        { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" },
        { type: "text", text: "I'll read it now." },
        { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "read_file", input: { path: "/tmp/notes.md" } },
      ],
    })
    expect(body.messages[2]).toMatchObject({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_01A09q90qw90lq917835lq9", content: "# notes" }],
    })
  })

  it("a tool call cut by the output limit ends the message with max_tokens", async () => {
    server.enqueue({
      blocks: [
        { type: "text", text: "Writing the file." },
        { type: "tool-call", id: "toolu_cut", name: "write_file", arguments: '{"path":"/tmp/x","content":"hel', complete: false },
      ],
      finish: "max-tokens",
      usage: { input: 50, output: 8192 },
    })
    const { message } = await run(server, API, [user("Write it")])

    expect(message.stopReason).toBe("length")
    expect(message.rawStopReason).toBe("max_tokens")
    expect(message.content[0]).toEqual({ type: "text", text: "Writing the file." })
    // pi-ai keeps the cut call, with no usable arguments: the block the assembler must drop.
    expect(message.content[1]).toMatchObject({ type: "toolCall", id: "toolu_cut", name: "write_file", arguments: {} })
    expect(message.content).toHaveLength(2)
    expect(message.usage).toMatchObject(usage(50, 8192))
  })

  it("reports the response's own model when it differs from the requested one", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "Hi." }], responseModel: "claude-fallback-1" })
    const { message } = await run(server, API, [user("Hi")])
    expect(message.responseModel).toBe("claude-fallback-1")
    expect(message.responseId).toMatch(/^msg_01[0-9A-Za-z]{22}$/)
  })
})
