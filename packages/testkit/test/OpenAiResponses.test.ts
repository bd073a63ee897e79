/** The OpenAI Responses wire, proven by pi-ai's own openai-responses provider. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Loopback } from "../src/index.js"
import { API_KEY, MODEL_ID, run, toolCallOf, toolResult, usage, user } from "./fixtures/PiAi.js"

const API = "openai-responses"

const RS = "rs_68a1f0c2d4e48190b14f964abc0542670bb6a6b452d3795b"
const MSG = "msg_68a1f0c3e5f08190a2c1d3b4e5f60718293a4b5c6d7e8f90"
const FC = "fc_68a1f0c4a1b28190c3d4e5f60718293a4b5c6d7e8f9012ab"
const ENCRYPTED = "gAAAAABoofDCZ3VhcmRlZC1yZWFzb25pbmctYmxvYg=="

describe("openai-responses over the loopback", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  const signed: Loopback.ReplyInput = {
    blocks: [
      { type: "reasoning", text: "Read the notes first.", signature: ENCRYPTED, id: RS },
      { type: "text", text: "Reading them.", id: MSG },
      { type: "tool-call", id: "call_Ab12", itemId: FC, name: "read_file", arguments: '{"path":"/tmp/notes.md"}' },
    ],
    finish: "tool-calls",
    usage: { input: 900, output: 64 },
    responseId: "resp_68a1f0c1b2c38190",
  }
  const reasoningItem = {
    id: RS,
    type: "reasoning",
    summary: [{ type: "summary_text", text: "Read the notes first." }],
    encrypted_content: ENCRYPTED,
  }

  it("streams a reasoning item with encrypted content, a message and a function call as pi-ai reads them", async () => {
    server.enqueue(signed)
    const { message } = await run(server, API, [user("Read my notes")], { reasoning: "medium" })

    expect(message.content).toEqual([
      { type: "thinking", thinking: "Read the notes first.", thinkingSignature: JSON.stringify(reasoningItem) },
      { type: "text", text: "Reading them.", textSignature: JSON.stringify({ v: 1, id: MSG }) },
      { type: "toolCall", id: `call_Ab12|${FC}`, name: "read_file", arguments: { path: "/tmp/notes.md" } },
    ])
    expect(message.stopReason).toBe("toolUse")
    expect(message.rawStopReason).toBe("completed")
    expect(message.responseId).toBe("resp_68a1f0c1b2c38190")
    expect(message.usage).toMatchObject(usage(900, 64))

    const request = server.requests().at(-1)!
    expect(request).toMatchObject({ method: "POST", path: "/v1/responses", api: API, model: MODEL_ID, status: 200 })
    expect(request.headers["authorization"]).toBe(`Bearer ${API_KEY}`)
    // Stateless replay needs the encrypted reasoning, which the client must ask for.
    expect(request.body).toMatchObject({ model: MODEL_ID, stream: true, store: false, include: ["reasoning.encrypted_content"] })
  })

  it("a continuation replays the reasoning item, the message id and the function call item verbatim", async () => {
    server.enqueue(signed, { blocks: [{ type: "text", text: "Done." }] })
    const first = await run(server, API, [user("Read my notes")], { reasoning: "medium" })
    const call = toolCallOf(first.message)
    const second = await run(server, API, [user("Read my notes"), first.message, toolResult(call, "# notes")], {
      reasoning: "medium",
    })

    expect(second.message.content).toMatchObject([{ type: "text", text: "Done." }])
    expect(second.message.stopReason).toBe("stop")
    const body = server.requests().at(-1)!.body as { input: Array<unknown> }
    expect(body.input.slice(1)).toEqual([
      reasoningItem,
      {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "Reading them.", annotations: [] }],
        status: "completed",
        id: MSG,
      },
      { type: "function_call", id: FC, call_id: "call_Ab12", name: "read_file", arguments: '{"path":"/tmp/notes.md"}' },
      { type: "function_call_output", call_id: "call_Ab12", output: "# notes" },
    ])
  })

  it("redacted reasoning is a reasoning item with only encrypted content", async () => {
    server.enqueue({ blocks: [{ type: "redacted-reasoning", data: ENCRYPTED, id: RS }, { type: "text", text: "Ok.", id: MSG }] })
    const { message } = await run(server, API, [user("Hi")])
    expect(message.content[0]).toEqual({
      type: "thinking",
      thinking: "",
      thinkingSignature: JSON.stringify({ id: RS, type: "reasoning", summary: [], encrypted_content: ENCRYPTED }),
    })
  })

  it("a function call cut by the output limit ends in response.incomplete with max_output_tokens", async () => {
    server.enqueue({
      blocks: [
        { type: "text", text: "Writing.", id: MSG },
        {
          type: "tool-call",
          id: "call_cut",
          itemId: FC,
          name: "write_file",
          arguments: '{"path":"/tmp/x","content":"hel',
          complete: false,
        },
      ],
      finish: "max-tokens",
      usage: { input: 30, output: 4096 },
    })
    const { message } = await run(server, API, [user("Write it")])
    expect(message.stopReason).toBe("length")
    expect(message.rawStopReason).toBe("incomplete.max_output_tokens")
    expect(message.content).toEqual([
      { type: "text", text: "Writing.", textSignature: JSON.stringify({ v: 1, id: MSG }) },
      // pi-ai parses the partial arguments it streamed; the call never got its done event.
      { type: "toolCall", id: `call_cut|${FC}`, name: "write_file", arguments: { path: "/tmp/x", content: "hel" } },
    ])
    expect(message.usage).toMatchObject(usage(30, 4096))
  })

  it("derives OpenAI-shaped ids when the reply gives none", async () => {
    server.enqueue({
      blocks: [
        { type: "reasoning", text: "Hm.", signature: ENCRYPTED },
        { type: "text", text: "Hi." },
        { type: "tool-call", id: "call_x", name: "noop", arguments: "{}" },
      ],
      finish: "tool-calls",
    })
    const { message } = await run(server, API, [user("Hi")])
    expect(message.responseId).toMatch(/^resp_[0-9a-f]{48}$/)
    const [thinking, text, call] = message.content
    expect(JSON.parse((thinking as { thinkingSignature: string }).thinkingSignature).id).toMatch(/^rs_[0-9a-f]{48}$/)
    expect(JSON.parse((text as { textSignature: string }).textSignature).id).toMatch(/^msg_[0-9a-f]{48}$/)
    expect((call as { id: string }).id).toMatch(/^call_x\|fc_[0-9a-f]{48}$/)
  })
})
