/** The OpenAI Chat Completions wire, proven by pi-ai's own openai-completions provider. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Loopback } from "../src/index.js"
import { API_KEY, MODEL_ID, run, toolCallOf, toolResult, usage, user } from "./fixtures/PiAi.js"

const API = "openai-completions"

describe("openai-completions over the loopback", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  const signed: Loopback.ReplyInput = {
    blocks: [
      { type: "reasoning", text: "Check the file first.", signature: "ErUBCkYIBxgCIkDsig" },
      { type: "text", text: "Reading it." },
      { type: "tool-call", id: "call_7Qy1", name: "read_file", arguments: '{"path":"/tmp/notes.md"}' },
    ],
    finish: "tool-calls",
    usage: { input: 300, output: 42 },
    responseId: "chatcmpl-loop0001",
  }
  const details = [{
    type: "reasoning.text",
    text: "Check the file first.",
    format: "anthropic-claude-v1",
    index: 0,
    signature: "ErUBCkYIBxgCIkDsig",
  }]

  it("streams signed reasoning, text and a tool call as pi-ai reads them", async () => {
    server.enqueue(signed)
    const { message } = await run(server, API, [user("Read my notes")])

    expect(message.content).toEqual([
      { type: "thinking", thinking: "Check the file first.", thinkingSignature: JSON.stringify(details) },
      { type: "text", text: "Reading it." },
      { type: "toolCall", id: "call_7Qy1", name: "read_file", arguments: { path: "/tmp/notes.md" } },
    ])
    expect(message.stopReason).toBe("toolUse")
    expect(message.rawStopReason).toBe("tool_calls")
    expect(message.responseId).toBe("chatcmpl-loop0001")
    expect(message.usage).toMatchObject(usage(300, 42))

    const request = server.requests().at(-1)!
    expect(request).toMatchObject({ method: "POST", path: "/v1/chat/completions", api: API, model: MODEL_ID, status: 200 })
    expect(request.headers["authorization"]).toBe(`Bearer ${API_KEY}`)
    expect(request.body).toMatchObject({ model: MODEL_ID, stream: true, stream_options: { include_usage: true } })
  })

  it("a continuation sends the reasoning details with their signature back", async () => {
    server.enqueue(signed, { blocks: [{ type: "text", text: "Done." }] })
    const first = await run(server, API, [user("Read my notes")])
    const call = toolCallOf(first.message)
    const second = await run(server, API, [user("Read my notes"), first.message, toolResult(call, "# notes")])

    expect(second.message.content).toEqual([{ type: "text", text: "Done." }])
    expect(second.message.stopReason).toBe("stop")
    expect(second.message.rawStopReason).toBe("stop")
    const body = server.requests().at(-1)!.body as { messages: Array<unknown> }
    expect(body.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: "Reading it.",
        tool_calls: [{ id: "call_7Qy1", type: "function", function: { name: "read_file", arguments: '{"path":"/tmp/notes.md"}' } }],
        reasoning_details: details,
      },
      { role: "tool", content: "# notes", tool_call_id: "call_7Qy1" },
    ])
  })

  it("unsigned reasoning streams as reasoning_content and goes back the same way", async () => {
    server.enqueue({ blocks: [{ type: "reasoning", text: "Simple." }, { type: "text", text: "Hello." }] }, {
      blocks: [{ type: "text", text: "Again." }],
    })
    const first = await run(server, API, [user("Hi")])
    expect(first.message.content).toEqual([
      { type: "thinking", thinking: "Simple.", thinkingSignature: "reasoning_content" },
      { type: "text", text: "Hello." },
    ])
    await run(server, API, [user("Hi"), first.message, user("Again")])
    const body = server.requests().at(-1)!.body as { messages: Array<unknown> }
    expect(body.messages[1]).toEqual({ role: "assistant", content: "Hello.", reasoning_content: "Simple." })
  })

  it("redacted reasoning arrives as an encrypted reasoning detail", async () => {
    server.enqueue({ blocks: [{ type: "redacted-reasoning", data: "gAAAAABoEnc", id: "rs_enc1" }, { type: "text", text: "Ok." }] })
    const { message } = await run(server, API, [user("Hi")])
    expect(message.content[0]).toEqual({
      type: "thinking",
      thinking: "",
      thinkingSignature: JSON.stringify([
        { type: "reasoning.encrypted", data: "gAAAAABoEnc", id: "rs_enc1", format: "anthropic-claude-v1", index: 0 },
      ]),
    })
  })

  it("a tool call cut by the output limit finishes with length", async () => {
    server.enqueue({
      blocks: [
        { type: "text", text: "Writing." },
        { type: "tool-call", id: "call_cut", name: "write_file", arguments: '{"path":"/tmp/x","con', complete: false },
      ],
      finish: "max-tokens",
      usage: { input: 20, output: 8192 },
    })
    const { message } = await run(server, API, [user("Write it")])
    expect(message.stopReason).toBe("length")
    expect(message.rawStopReason).toBe("length")
    expect(message.content[0]).toEqual({ type: "text", text: "Writing." })
    expect(message.content[1]).toMatchObject({ type: "toolCall", id: "call_cut", name: "write_file", arguments: {} })
    expect(message.content).toHaveLength(2)
  })

  it("sends no usage chunk to a client that did not ask for one", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "Hi." }], usage: { input: 5, output: 2 } })
    const response = await fetch(`${server.baseUrl(API)}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL_ID, stream: true, messages: [] }),
    })
    const text = await response.text()
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
    expect(text).not.toContain('"usage"')
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true)
  })
})
