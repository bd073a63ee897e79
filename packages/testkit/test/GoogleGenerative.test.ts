/** The Gemini API wire, proven by pi-ai's own google-generative-ai provider. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Loopback } from "../src/index.js"
import { API_KEY, MODEL_ID, run, toolCallOf, toolResult, usage, user } from "./fixtures/PiAi.js"

const API = "google-generative-ai"

const THOUGHT_SIG = "CiIBVKhc7oPkDgYAWZJkS3C5qyEVXs1k2Ij9bP7kT2Zt"
const CALL_SIG = "CikBVKhc7q1Ar0wJeAnjmRgSOpKqB1gWHKEYkfjQ1bFz"

describe("google-generative-ai over the loopback", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  const signed: Loopback.ReplyInput = {
    blocks: [
      { type: "reasoning", text: "I should read the notes.", signature: THOUGHT_SIG },
      { type: "text", text: "Reading them." },
      { type: "tool-call", id: "call_g1", name: "read_file", arguments: '{"path":"/tmp/notes.md"}', signature: CALL_SIG },
    ],
    finish: "tool-calls",
    usage: { input: 700, output: 33 },
    responseId: "p3PRaMu8Lq-vz7IPqPGK6Qk",
  }

  it("streams thought parts, text and a function call with their signatures as pi-ai reads them", async () => {
    server.enqueue(signed)
    const { message } = await run(server, API, [user("Read my notes")])

    expect(message.content).toEqual([
      { type: "thinking", thinking: "I should read the notes.", thinkingSignature: THOUGHT_SIG },
      { type: "text", text: "Reading them." },
      { type: "toolCall", id: "call_g1", name: "read_file", arguments: { path: "/tmp/notes.md" }, thoughtSignature: CALL_SIG },
    ])
    expect(message.stopReason).toBe("toolUse")
    expect(message.rawStopReason).toBe("STOP")
    expect(message.responseId).toBe("p3PRaMu8Lq-vz7IPqPGK6Qk")
    expect(message.usage).toMatchObject(usage(700, 33))

    const request = server.requests().at(-1)!
    expect(request).toMatchObject({
      method: "POST",
      path: `/v1beta/models/${MODEL_ID}:streamGenerateContent`,
      query: { alt: "sse" },
      api: API,
      model: MODEL_ID,
      status: 200,
    })
    expect(request.headers["x-goog-api-key"]).toBe(API_KEY)
    expect(request.body).toMatchObject({ contents: [{ role: "user", parts: [{ text: "Read my notes" }] }] })
  })

  it("a continuation sends every thought signature back on its part", async () => {
    server.enqueue(signed, { blocks: [{ type: "text", text: "Done." }] })
    const first = await run(server, API, [user("Read my notes")])
    const call = toolCallOf(first.message)
    const second = await run(server, API, [user("Read my notes"), first.message, toolResult(call, "# notes")])

    expect(second.message.content).toEqual([{ type: "text", text: "Done." }])
    expect(second.message.stopReason).toBe("stop")
    const body = server.requests().at(-1)!.body as { contents: Array<unknown> }
    expect(body.contents.slice(1)).toEqual([
      {
        role: "model",
        parts: [
          { thought: true, text: "I should read the notes.", thoughtSignature: THOUGHT_SIG },
          { text: "Reading them." },
          { functionCall: { name: "read_file", args: { path: "/tmp/notes.md" } }, thoughtSignature: CALL_SIG },
        ],
      },
      { role: "user", parts: [{ functionResponse: { name: "read_file", response: { output: "# notes" } } }] },
    ])
  })

  it("a text block's signature rides on its last part", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "All done here.", signature: THOUGHT_SIG }] })
    const { message } = await run(server, API, [user("Hi")])
    expect(message.content).toEqual([{ type: "text", text: "All done here.", textSignature: THOUGHT_SIG }])
    expect(message.stopReason).toBe("stop")
  })

  it("a function call cut by the output limit carries the arguments generated so far and MAX_TOKENS", async () => {
    server.enqueue({
      blocks: [
        { type: "text", text: "Writing." },
        { type: "tool-call", id: "call_cut", name: "write_file", arguments: '{"path":"/tmp/x","content":"hel', complete: false },
      ],
      finish: "max-tokens",
      usage: { input: 40, output: 2048 },
    })
    const { message } = await run(server, API, [user("Write it")])
    expect(message.stopReason).toBe("length")
    expect(message.rawStopReason).toBe("MAX_TOKENS")
    expect(message.content).toEqual([
      { type: "text", text: "Writing." },
      { type: "toolCall", id: "call_cut", name: "write_file", arguments: { path: "/tmp/x", content: "hel" } },
    ])
  })

  it("separates events with CRLF blank lines, like the Gemini API", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "Hi there." }] })
    const response = await fetch(`${server.baseUrl(API)}/models/${MODEL_ID}:streamGenerateContent?alt=sse`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [] }),
    })
    const events = (await response.text()).split("\r\n\r\n")
    expect(events).toHaveLength(3)
    expect(events[2]).toBe("")
    expect(JSON.parse(events[1]!.slice("data: ".length))).toMatchObject({
      candidates: [{ content: { parts: [{ text: " there." }], role: "model" }, finishReason: "STOP", index: 0 }],
      modelVersion: MODEL_ID,
    })
  })
})
