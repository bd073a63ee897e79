/**
 * A session that moves between adapters: a history holding a message of each
 * kind (pi-ai version 2, written by the pi-ai adapter; ai-sdk version 1,
 * written by this one, both over the loopback), reconstructed by each adapter
 * in turn. The other kind's message degrades with INVALID_REPLAY_STATE exactly
 * once and goes without its signature; the adapter's own message replays
 * natively, its signature on the wire.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Message } from "@turnlog/protocol"
import type { Loopback } from "@turnlog/testkit"
import { PiAiAdapter } from "@turnlog/llm-pi-ai"
import { type Api, APIS, configFor, finishOf, harness, harnessOf, KEY, KEY_ENV, MODEL, providerOf, request, stored, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

/** A reply whose reasoning carries a signature unique to `id` (and, on the Responses wire, its own item). */
const signedReply = (api: Api, id: string): Loopback.ReplyInput => ({
  blocks: [
    api === "openai-responses"
      ? { type: "reasoning", text: `Think (${id}).`, signature: `gAAAAABenc-${id}`, id: `rs_${id}` }
      : { type: "reasoning", text: `Think (${id}).`, signature: Buffer.from(`signature of ${id}`).toString("base64") },
    { type: "text", text: `Answer ${id}.` },
  ],
})
const signatureOf = (api: Api, id: string) => (api === "openai-responses" ? `gAAAAABenc-${id}` : Buffer.from(`signature of ${id}`).toString("base64"))

const piAi = () => harnessOf(PiAiAdapter.layerPiAi(configFor(loopback.server), { env: { [KEY_ENV]: KEY } }))

const degraded = (api: Api, messageId: string, sessionId: string, reason: string) => ({
  code: "INVALID_REPLAY_STATE",
  sessionId,
  messageId,
  historicalRoute: `${providerOf(api)}/${MODEL}`,
  targetRoute: `${providerOf(api)}/${MODEL}`,
  reason,
})

describe.each(APIS)("%s: pi-ai → ai-sdk → pi-ai", (api) => {
  // The AI SDK's chat-completions providers keep no signature, so on that wire its own message has none to send.
  const aiSdkSigns = api !== "openai-completions"

  it("each adapter degrades the other's message once and replays its own natively", async () => {
    const session = `s-cross-${api}` as never
    const wire = () => JSON.stringify(loopback.server.requests().at(-1)!.body)

    // 1. pi-ai answers the first prompt.
    const pi = await piAi()
    loopback.server.enqueue(signedReply(api, "pione"))
    const p1 = stored("p1", api, await pi.collect(request(api, [user("u1", "First?")], { sessionId: session }))).message
    expect((p1.source as { replayState: { response: { kind: string } } }).replayState.response.kind).toBe("pi-ai")

    // 2. The session continues under ai-sdk: the pi-ai message goes provider-neutral.
    const ai = await harness(loopback.server)
    loopback.server.enqueue(signedReply(api, "aione"), { blocks: [{ type: "text", text: "Third." }] })
    const history: Array<Message> = [user("u1", "First?"), p1, user("u2", "Second?")]
    const second = await ai.collect(request(api, history, { sessionId: session }))
    expect(finishOf(second)).toMatchObject({ reason: { kind: "stop" } })
    expect(wire()).toContain("Answer pione.")
    expect(wire()).not.toContain(signatureOf(api, "pione"))
    const s1 = stored("s1", api, second).message
    expect((s1.source as { replayState: { response: { kind: string } } }).replayState.response.kind).toBe("ai-sdk")

    // 3. ai-sdk again: its own message natively, the pi-ai one still neutral and not reported again.
    history.push(s1, user("u3", "Third?"))
    expect(finishOf(await ai.collect(request(api, history, { sessionId: session })))).toMatchObject({ reason: { kind: "stop" } })
    expect(wire()).not.toContain(signatureOf(api, "pione"))
    if (aiSdkSigns) expect(wire()).toContain(JSON.stringify(signatureOf(api, "aione")))
    expect(await ai.diagnostics()).toEqual([degraded(api, "p1", session, 'replay state kind "pi-ai" is not "ai-sdk"')])

    // 4. Back to pi-ai: its own message natively again, the ai-sdk one neutral, reported once.
    const back = await piAi()
    loopback.server.enqueue({ blocks: [{ type: "text", text: "Fourth." }] }, { blocks: [{ type: "text", text: "Fifth." }] })
    expect(finishOf(await back.collect(request(api, history, { sessionId: session })))).toMatchObject({ reason: { kind: "stop" } })
    expect(wire()).toContain(JSON.stringify(signatureOf(api, "pione")).slice(1, -1))
    expect(wire()).not.toContain(signatureOf(api, "aione"))
    expect(wire()).toContain("Answer aione.")
    await back.collect(request(api, [...history, user("u4", "Fifth?")], { sessionId: session }))
    expect(await back.diagnostics()).toEqual([degraded(api, "s1", session, 'replay state kind "ai-sdk" is not "pi-ai"')])
  })
})
