/**
 * A provider's refusals, through the real AI SDK provider packages against the
 * loopback refusing as each provider does: replayed metadata it will not
 * accept ends the stream as REPLAY_REJECTED (with the refused message's index
 * where the provider names it), and the same message sent provider-neutral (as
 * after the loop's `replay/degrade`) is answered; an input over the window ends
 * as CONTEXT_WINDOW_EXCEEDED.
 *
 * The chat-completions wire is left out of the replay refusals: the AI SDK's
 * chat-completions providers keep no signature, so nothing is replayed to refuse.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Message, StreamChunk } from "@turnlog/protocol"
import type { Loopback } from "@turnlog/testkit"
import { type Api, APIS, harness, MODEL, request, stored, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

const SIGNING = ["openai-responses", "anthropic-messages", "google-generative-ai"] as const

/** A reply whose reasoning carries the api's signed or encrypted metadata, unique to the reply. */
const signedReply = (api: Api, id: string): Loopback.ReplyInput => ({
  blocks: [
    api === "openai-responses"
      ? { type: "reasoning", text: "Think first.", signature: `gAAAAABencrypted-${id}`, id: `rs_${id}` }
      : { type: "reasoning", text: "Think first.", signature: Buffer.from(`signature of ${id}`).toString("base64") },
    { type: "text", text: "Thought about it." },
  ],
})

const finishOf = (chunks: ReadonlyArray<StreamChunk>) => {
  const finishes = chunks.filter((c) => c.type === "finish")
  expect(finishes).toHaveLength(1)
  expect(chunks.at(-1)).toBe(finishes[0])
  return finishes[0] as Extract<StreamChunk, { type: "finish" }>
}

/** The OpenAI and Anthropic formats name the request in a header; Gemini's does not. */
const requestIdOf = (api: Api) => (api === "google-generative-ai" ? {} : { requestId: expect.stringMatching(/^req_/) })

// Where the provider names the refused message (Anthropic a body position, OpenAI an item id), the index is ours: 1.
const expectedFailure = (api: Api, id: string) =>
  ({
    "anthropic-messages": { status: 400, messageIndex: 1, message: expect.stringContaining("Invalid `signature` in `thinking` block") },
    "openai-responses": {
      status: 400,
      messageIndex: 1,
      message: expect.stringContaining(`The encrypted content for item rs_${id} could not be verified`),
    },
    "openai-completions": {},
    "google-generative-ai": { status: 400, message: expect.stringContaining("Corrupted thought signature.") },
  })[api]

describe.each(SIGNING)("%s: the provider refuses replayed metadata", (api) => {
  it("metadata minted by a refused reply → REPLAY_REJECTED, no reply played; the same message without it is answered", async () => {
    const h = await harness(loopback.server)
    const id = `${api.replace(/-/g, "")}minted`
    loopback.server.enqueue(signedReply(api, id))
    const minted = loopback.server.requests().length
    const first = await h.collect(request(api, [user("u1", "Think about it.")]))
    expect(finishOf(first).reason).toStrictEqual({ kind: "stop" })
    const a1 = stored("a1", api, first).message
    const history: Array<Message> = [user("u1", "Think about it."), a1, user("u2", "And then?")]

    loopback.server.refuseReplay({ mintedBy: minted })
    loopback.server.enqueue({ blocks: [{ type: "text", text: "Answered." }] })
    const index = loopback.server.requests().length
    const refused = finishOf(await h.collect(request(api, history)))
    expect(refused.reason).toStrictEqual({ kind: "error", failure: { code: "REPLAY_REJECTED", ...expectedFailure(api, id), ...requestIdOf(api) } })
    expect(refused.replayState).toBe(undefined)
    expect(loopback.server.requests()[index]).toMatchObject({ refused: "replay", status: 400 })
    expect(loopback.server.pending()).toBe(1)

    // Sent provider-neutral (no replay state), the message carries nothing to refuse.
    const neutral: Message = { ...a1, source: { kind: "model", provider: (a1.source as { provider: string }).provider, model: MODEL } }
    const answered = finishOf(await h.collect(request(api, [history[0]!, neutral, history[2]!])))
    expect(answered.reason).toStrictEqual({ kind: "stop" })
    expect(loopback.server.requests().at(-1)!.refused).toBe(undefined)
    expect(JSON.stringify(loopback.server.requests().at(-1)!.body)).toContain("Thought about it.")
  })
})

describe.each(APIS)("%s: an input over the context window", (api) => {
  it("is refused as the provider refuses it → CONTEXT_WINDOW_EXCEEDED, and fits again once the window allows it", async () => {
    const h = await harness(loopback.server)
    loopback.server.setContextWindow(200)
    loopback.server.enqueue({ blocks: [{ type: "text", text: "Fits." }] })
    const long = [user(`${api}-w1`, "word ".repeat(400))]
    const index = loopback.server.requests().length
    try {
      expect(finishOf(await h.collect(request(api, long))).reason).toStrictEqual({
        kind: "error",
        failure: { code: "CONTEXT_WINDOW_EXCEEDED", status: 400, message: expect.any(String), ...requestIdOf(api) },
      })
      expect(loopback.server.requests()[index]!.refused).toBe("context-window")
      expect(finishOf(await h.collect(request(api, [user(`${api}-w2`, "Short.")]))).reason).toStrictEqual({ kind: "stop" })
    } finally {
      loopback.server.setContextWindow(undefined)
    }
  })
})
