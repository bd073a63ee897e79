// A provider refusing replayed metadata (a signature from another key, an
// encrypted reasoning item that expired), through pi-ai and the loopback on
// each wire format: the loop writes replay/degrade, retries once with the
// message provider-neutral, and no later request repeats the refusal.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SessionLog } from "@turnlog/protocol"
import { Loopback } from "@turnlog/testkit"
import { setup } from "./support/harness.js"
import { type Api, APIS, layer, MODEL_ID, modelOf, providerOf } from "./support/piAi.js"

/** A reply whose reasoning carries the api's signed or encrypted metadata, unique to `id`. */
const signedReply = (api: Api, id: string): Loopback.ReplyInput => ({
  blocks: [
    api === "openai-responses"
      ? { type: "reasoning", text: "Think first.", signature: `gAAAAABencrypted-${id}`, id: `rs_${id}` }
      : { type: "reasoning", text: "Think first.", signature: Buffer.from(`signature of ${id}`).toString("base64") },
    { type: "text", text: `Thought about ${id}.` },
  ],
})

const degrades = (events: ReadonlyArray<SessionLog.SessionEvent>) =>
  events.filter((e): e is SessionLog.EventOf<"replay/degrade"> => e.type === "replay/degrade")

const setupFor = (api: Api) =>
  Effect.gen(function*() {
    const server = yield* Loopback.make
    const h = yield* setup([], { llm: layer(server), config: { model: modelOf(api) } })
    return { ...h, server }
  })

describe.each(APIS)("over the %s wire, a provider refusing replayed metadata", (api) => {
  it.scopedLive("the turn completes, the log holds replay/degrade, later requests send the message provider-neutral", () =>
    Effect.gen(function*() {
      const h = yield* setupFor(api)
      h.server.enqueue(signedReply(api, "first"))
      expect((yield* h.prompt("Think about it.")).at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const minted = (yield* h.events()).find((e) => e.type === "assistant/message")!
      const mintedId = (minted as SessionLog.EventOf<"assistant/message">).data.message.id

      // Every request that replays what the first reply minted is refused, as a provider does.
      h.server.refuseReplay({ mintedBy: 0 })
      h.server.enqueue({ blocks: [{ type: "text", text: "Second answer." }] })
      const second = yield* h.prompt("And then?")
      expect(second.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      expect(second.filter((u) => u.type === "retry")).toMatchObject([
        { attempt: 2, delayMs: 0, failure: { code: "REPLAY_REJECTED" } },
      ])
      const events = yield* h.events()
      const [degrade, ...more] = degrades(events)
      expect(more).toEqual([])
      expect(degrade!.data).toMatchObject({ messageIds: [mintedId], provider: providerOf(api), model: MODEL_ID })
      expect(degrade!.data.reason.length).toBeGreaterThan(0)
      const requests = h.server.requests()
      expect(requests.map((r) => r.refused)).toEqual([undefined, "replay", undefined])
      // The retry carried the message's content without its metadata.
      const retried = JSON.stringify(requests[2]!.body)
      expect(retried).toContain("Thought about first.")
      expect(retried).not.toContain(api === "openai-responses" ? "gAAAAABencrypted-first" : Buffer.from("signature of first").toString("base64"))

      h.server.enqueue({ blocks: [{ type: "text", text: "Third answer." }] })
      expect((yield* h.prompt("Once more.")).at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      expect(h.server.requests().map((r) => r.refused)).toEqual([undefined, "replay", undefined, undefined])
      expect(degrades(yield* h.events())).toHaveLength(1)
    }))
})

describe("a second refusal after the repair", () => {
  it.scopedLive("ends the turn with the provider's failure, without a loop", () =>
    Effect.gen(function*() {
      const api: Api = "anthropic-messages"
      const h = yield* setupFor(api)
      h.server.enqueue(signedReply(api, "one"))
      yield* h.prompt("First.")
      h.server.enqueue(signedReply(api, "two"))
      yield* h.prompt("Second.")
      // Anthropic names the refused message: only that one is degraded, the other still replays and is refused again.
      h.server.refuseReplay({ next: 2 })
      h.server.enqueue({ blocks: [{ type: "text", text: "Never played." }] })
      const updates = yield* h.prompt("Third.")
      expect(updates.at(-1)).toMatchObject({
        type: "turn-end",
        reason: "error",
        failure: {
          code: "REPLAY_REJECTED",
          message: expect.stringMatching(/Invalid `signature` in `thinking` block.* \(refused again after the refused replay state was set aside\)$/),
        },
      })
      expect(updates.filter((u) => u.type === "retry")).toHaveLength(1)
      expect(h.server.requests().map((r) => r.refused)).toEqual([undefined, undefined, "replay", "replay"])
      expect(degrades(yield* h.events())).toHaveLength(1)
      expect(h.server.pending()).toBe(1)
    }))
})
