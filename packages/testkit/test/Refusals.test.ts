/**
 * The loopback's refusals on the wire: each provider's own status and error
 * body, nothing taken from the reply queue, and the rules as documented
 * (metadata minted by one reply; the next N requests carrying any; a context
 * window counted as a token per four characters of body).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Loopback } from "../src/index.js"

const post = async (server: Loopback.Server, path: string, body: unknown) => {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() as unknown }
}

const anthropicTurn = (signature: string) => ({
  model: "claude-loop",
  stream: true,
  messages: [
    { role: "user", content: "Hi" },
    { role: "assistant", content: [{ type: "text", text: "Hello." }, { type: "thinking", thinking: "t", signature }] },
    { role: "user", content: "Again" },
  ],
})

describe("the loopback's refusals", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  it("the next N requests replaying any metadata: Anthropic's 400 naming the block; requests without metadata pass", async () => {
    server.refuseReplay({ next: 2 })
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] })
    const refused = await post(server, "/v1/messages", anthropicTurn("sig-a"))
    expect(refused).toMatchObject({
      status: 400,
      body: {
        type: "error",
        error: { type: "invalid_request_error", message: "messages.1.content.1: Invalid `signature` in `thinking` block" },
        request_id: expect.stringMatching(/^req_/),
      },
    })
    expect(server.pending()).toBe(1)
    expect(
      (await fetch(`${server.url}/v1/messages`, {
        method: "POST",
        body: JSON.stringify({ model: "claude-loop", stream: true, messages: [{ role: "user", content: "Hi" }] }),
      })).status,
    ).toBe(200)
    expect((await post(server, "/v1/messages", anthropicTurn("sig-b"))).status).toBe(400)
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] })
    expect((await fetch(`${server.url}/v1/messages`, { method: "POST", body: JSON.stringify(anthropicTurn("sig-c")) })).status)
      .toBe(200)
    expect(server.requests().map((r) => r.refused)).toEqual(["replay", undefined, "replay", undefined])
  })

  it("metadata minted by one reply: only what that reply streamed is refused (a Gemini thought signature)", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "Signed.", signature: "bWludGVkLWJ5LW9uZQ==" }] })
    const minted = server.requests().length
    const path = "/v1beta/models/gemini-loop:streamGenerateContent"
    expect((await fetch(`${server.url}${path}?alt=sse`, { method: "POST", body: JSON.stringify({ contents: [] }) })).status)
      .toBe(200)
    server.refuseReplay({ mintedBy: minted })
    const replaying = (signature: string) => ({
      contents: [{ role: "model", parts: [{ text: "Signed.", thoughtSignature: signature }] }, { role: "user", parts: [{ text: "And?" }] }],
    })
    expect(await post(server, path, replaying("bWludGVkLWJ5LW9uZQ=="))).toStrictEqual({
      status: 400,
      body: { error: { code: 400, message: "Corrupted thought signature.", status: "INVALID_ARGUMENT" } },
    })
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] })
    expect((await fetch(`${server.url}${path}?alt=sse`, { method: "POST", body: JSON.stringify(replaying("b3RoZXI=")) })).status)
      .toBe(200)
  })

  it("a context window: an input over it is refused with the provider's counts, one token per four characters", async () => {
    server.setContextWindow(100)
    const body = { model: "gpt-loop", stream: true, messages: [{ role: "user", content: "x".repeat(500) }] }
    const tokens = Math.ceil(JSON.stringify(body).length / 4)
    expect(await post(server, "/v1/chat/completions", body)).toStrictEqual({
      status: 400,
      body: {
        error: {
          message: `This model's maximum context length is 100 tokens. However, your messages resulted in ${tokens} tokens. ` +
            "Please reduce the length of the messages.",
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      },
    })
    expect(await post(server, "/v1/responses", { model: "gpt-loop", input: [{ role: "user", content: "x".repeat(500) }] }))
      .toMatchObject({ status: 400, body: { error: { code: "context_length_exceeded", param: "input" } } })
    server.setContextWindow(undefined)
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] })
    expect((await fetch(`${server.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify(body) })).status).toBe(200)
  })

  it("the same rules over the control endpoint, for a loopback in another process", async () => {
    const control = (rule: unknown) => post(server, "/__loopback/refusals", rule)
    expect(await control({ contextWindow: 10 })).toStrictEqual({ status: 200, body: { contextWindow: 10 } })
    const tooLong = await post(server, "/v1/messages", { model: "claude-loop", messages: [{ role: "user", content: "x".repeat(100) }] })
    expect(tooLong).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/^prompt is too long: \d+ tokens > 10 maximum$/) } } })
    expect(await control({ contextWindow: null })).toStrictEqual({ status: 200, body: { contextWindow: null } })
    expect(await control({ next: 1 })).toStrictEqual({ status: 200, body: { next: 1 } })
    expect((await post(server, "/v1/messages", anthropicTurn("sig-d"))).status).toBe(400)
    const invalid = await control({ next: -1 })
    expect(invalid.status).toBe(400)
    expect(JSON.stringify(invalid.body)).toContain("not a refusal rule")
  })
})
