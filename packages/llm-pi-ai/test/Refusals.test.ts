/**
 * A provider's refusals, through the real pi-ai providers against the loopback
 * refusing as each provider does: replayed metadata it will not accept ends the
 * stream as REPLAY_REJECTED (with the refused message's index where the
 * provider names it), an input over the window as CONTEXT_WINDOW_EXCEEDED.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Message, StreamChunk } from "@turnlog/protocol"
import type { Loopback } from "@turnlog/testkit"
import { type Api, APIS, request, stored, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

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

/** One answered turn: the history a continuation replays, and the index of the request that minted its metadata. */
const firstTurn = async (api: Api, id: string) => {
  loopback.server.enqueue(signedReply(api, id))
  const minted = loopback.server.requests().length
  const chunks = await loopback.h.collect(request(api, [user(`${id}-u1`, "Think about it.")]))
  expect(finishOf(chunks).reason).toStrictEqual({ kind: "stop" })
  const history: Array<Message> = [user(`${id}-u1`, "Think about it."), stored(`${id}-a1`, api, chunks).message, user(`${id}-u2`, "And then?")]
  return { minted, history }
}

// Where the provider names the refused message (Anthropic a body position, OpenAI an item id), the index is ours: 1.
const expectedFailure = (api: Api, id: string) =>
  ({
    "anthropic-messages": { status: 400, messageIndex: 1, message: expect.stringContaining("Invalid `signature` in `thinking` block") },
    "openai-responses": {
      status: 400,
      messageIndex: 1,
      message: expect.stringContaining(`The encrypted content for item rs_${id} could not be verified`),
    },
    "openai-completions": { status: 400, message: expect.stringContaining("Invalid `signature` in `thinking` block") },
    "google-generative-ai": { status: 400, message: expect.stringContaining("Corrupted thought signature.") },
  })[api]

describe.each(APIS)("%s: the provider refuses replayed metadata", (api) => {
  it("metadata minted by a refused reply → REPLAY_REJECTED, no reply played; the same message without it is answered", async () => {
    const id = `${api.replace(/-/g, "")}minted`
    const { minted, history } = await firstTurn(api, id)
    loopback.server.refuseReplay({ mintedBy: minted })
    loopback.server.enqueue({ blocks: [{ type: "text", text: "Answered." }] })
    const index = loopback.server.requests().length
    const refused = finishOf(await loopback.h.collect(request(api, history)))
    expect(refused.reason).toStrictEqual({ kind: "error", failure: { code: "REPLAY_REJECTED", ...expectedFailure(api, id), ...requestIdOf(api) } })
    expect(refused.replayState).toBe(undefined)
    expect(loopback.server.requests()[index]).toMatchObject({ refused: "replay", status: expectedFailure(api, id).status })
    expect(loopback.server.pending()).toBe(1)

    // Sent provider-neutral (no replay state), the message carries nothing to refuse.
    const [u1, a1, u2] = history as [Message, Message, Message]
    const neutral: Message = { ...a1, source: { kind: "model", provider: (a1.source as { provider: string }).provider, model: "loop-1" } }
    const answered = finishOf(await loopback.h.collect(request(api, [u1, neutral, u2])))
    expect(answered.reason).toStrictEqual({ kind: "stop" })
    expect(loopback.server.requests().at(-1)!.refused).toBe(undefined)
  })

  it("the next request carrying any metadata is refused, the one after is answered", async () => {
    const { history } = await firstTurn(api, `${api.replace(/-/g, "")}next`)
    loopback.server.refuseReplay({ next: 1 })
    loopback.server.enqueue({ blocks: [{ type: "text", text: "Answered." }] })
    expect(finishOf(await loopback.h.collect(request(api, history))).reason).toMatchObject({
      kind: "error",
      failure: { code: "REPLAY_REJECTED" },
    })
    expect(finishOf(await loopback.h.collect(request(api, history))).reason).toStrictEqual({ kind: "stop" })
  })
})

describe("openai-responses: a reasoning item without encrypted content", () => {
  it("is looked up by id and not found: a 404, still REPLAY_REJECTED with the message's index", async () => {
    loopback.server.enqueue({ blocks: [{ type: "reasoning", text: "Plain.", id: "rs_unsigned02" }, { type: "text", text: "Done." }] })
    const minted = loopback.server.requests().length
    const chunks = await loopback.h.collect(request("openai-responses", [user("r-u1", "Go.")]))
    loopback.server.refuseReplay({ mintedBy: minted })
    const history = [user("r-u1", "Go."), stored("r-a1", "openai-responses", chunks).message, user("r-u2", "More.")]
    expect(finishOf(await loopback.h.collect(request("openai-responses", history))).reason).toStrictEqual({
      kind: "error",
      failure: {
        code: "REPLAY_REJECTED",
        status: 404,
        messageIndex: 1,
        message: expect.stringContaining("Item with id 'rs_unsigned02' not found"),
        requestId: expect.stringMatching(/^req_/),
      },
    })
  })
})

describe.each(APIS)("%s: an input over the context window", (api) => {
  it("is refused as the provider refuses it → CONTEXT_WINDOW_EXCEEDED, and fits again once the window allows it", async () => {
    loopback.server.setContextWindow(200)
    loopback.server.enqueue({ blocks: [{ type: "text", text: "Fits." }] })
    const long = [user(`${api}-w1`, "word ".repeat(400))]
    const index = loopback.server.requests().length
    try {
      expect(finishOf(await loopback.h.collect(request(api, long))).reason).toStrictEqual({
        kind: "error",
        failure: { code: "CONTEXT_WINDOW_EXCEEDED", status: 400, message: expect.any(String), ...requestIdOf(api) },
      })
      expect(loopback.server.requests()[index]!.refused).toBe("context-window")
      expect(finishOf(await loopback.h.collect(request(api, [user(`${api}-w2`, "Short.")]))).reason).toStrictEqual({ kind: "stop" })
    } finally {
      loopback.server.setContextWindow(undefined)
    }
  })
})

/** The OpenAI and Anthropic formats name the request in a header; Gemini's does not. */
function requestIdOf(api: Api) {
  return api === "google-generative-ai" ? {} : { requestId: expect.stringMatching(/^req_/) }
}
