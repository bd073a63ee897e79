// The loop over the real pi-ai adapter and the real wire formats (a loopback
// provider): the max-tokens regression end to end for each api, a legacy
// version-1 message that degrades with one diagnostic on stderr, and the
// retry rules on real HTTP failures.
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it, vi } from "@effect/vitest"
import { Effect } from "effect"
import { makeMessageId, SessionLog } from "@turnlog/protocol"
import { Loopback } from "@turnlog/testkit"
import { chunksOf, ONE_STEP_TURN, outline, promptCancelling, setup } from "./support/harness.js"
import { type Api, APIS, conversationOf, layer, MODEL_ID, modelOf, providerOf } from "./support/piAi.js"

/** Diagnostic lines written to stderr while `effect` runs. */
const stderrLines = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const lines: Array<string> = []
      const original = process.stderr.write.bind(process.stderr)
      const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: any, ...rest: Array<any>) => {
        const text = String(chunk)
        if (text.startsWith("turnlog: ")) {
          lines.push(text)
          return true
        }
        return original(chunk, ...rest)
      })
      return { lines, spy }
    }),
    ({ lines }) => Effect.map(effect, (value) => ({ value, lines })),
    ({ spy }) => Effect.sync(() => spy.mockRestore()),
  )

/** The loop over pi-ai, talking to a loopback provider of its own for the test's scope. */
const setupFor = (api: Api) =>
  Effect.gen(function*() {
    const server = yield* Loopback.make
    const h = yield* setup([], { llm: layer(server), config: { model: modelOf(api) } })
    return { ...h, server }
  })

describe.each(APIS)("over the %s wire", (api) => {
  it.scopedLive("a reply cut at max-tokens mid tool call: text kept, envelope pruned, the continuation completes", () =>
    Effect.gen(function*() {
      const h = yield* setupFor(api)
      const server = h.server
      server.enqueue(
        {
          blocks: [
            { type: "text", text: "I will write the file now." },
            {
              type: "tool-call",
              id: "call_cut1",
              name: "write_file",
              arguments: `{"path": "out.txt", "content": "partial conte`,
              complete: false,
            },
          ],
          finish: "max-tokens",
          usage: { input: 50, output: 64 },
        },
        { blocks: [{ type: "text", text: "Continuing without the tool." }] },
      )

      const updates1 = yield* h.prompt("write out.txt")
      expect(updates1.at(-1)).toEqual({ type: "turn-end", reason: "max-tokens" })
      expect(updates1.some((u) => u.type === "tool-call")).toBe(false)

      const events = yield* h.events()
      expect(outline(events)).toEqual(ONE_STEP_TURN)
      // The raw chunks: the tool call streamed, and the finish envelope has entries for both blocks.
      const raw = chunksOf(events)
      expect(raw.some((c) => c.type === "tool-call-delta")).toBe(true)
      const finish = raw.at(-1)!
      expect(finish).toMatchObject({ type: "finish", reason: { kind: "max-tokens" } })
      const unpruned = (finish as unknown as { replayState: { blocks: Array<{ type: string }> } }).replayState
      expect(unpruned.blocks.map((b) => b.type)).toEqual(["text", "tool-call"])

      const message = events.find((e) => e.type === "assistant/message")!.data
      expect(message.message.content).toEqual([{ type: "text", text: "I will write the file now." }])
      const state = (message.message.source as { replayState: { response: any; blocks: Array<{ type: string }> } })
        .replayState
      expect(state.response).toMatchObject({ kind: "pi-ai", version: 2, api, provider: providerOf(api), model: MODEL_ID })
      expect(state.blocks).toEqual([unpruned.blocks[0]])
      expect(events.some((e) => e.type === "tool/call")).toBe(false)
      expect(fs.existsSync(path.join(h.cwd, "out.txt"))).toBe(false)

      const { lines, value: updates2 } = yield* stderrLines(h.prompt("go on"))
      expect(updates2.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      expect(lines).toEqual([]) // the pruned envelope is usable: no degradation
      const wire = server.requests()[1]!
      expect(wire.status).toBe(200)
      const conversation = conversationOf(wire.body)
      expect(conversation).toContain("I will write the file now.")
      expect(conversation).toContain("go on")
      expect(conversation).not.toContain("call_cut1")
      expect(conversation).not.toContain("write_file")
      expect(conversation).not.toContain("partial conte")
    }))
})

describe("a stored message with the flat version-1 state", () => {
  it.scopedLive("continues: the message goes provider-neutral, one diagnostic on stderr for the session", () =>
    Effect.gen(function*() {
      const api: Api = "anthropic-messages"
      const h = yield* setupFor(api)
      const server = h.server
      // A session written by an older build, loaded from the store.
      const id = yield* h.store.create({ cwd: h.cwd })
      const legacyId = makeMessageId()
      yield* h.store.append(
        id,
        SessionLog.stamp(1, [
          { type: "turn/start", data: {} },
          {
            type: "user/message",
            data: {
              message: { id: makeMessageId(), role: "user", content: [{ type: "text", text: "Hi" }], source: { kind: "user" } },
            },
          },
          {
            type: "assistant/message",
            data: {
              message: {
                id: legacyId,
                role: "assistant",
                content: [{ type: "reasoning", text: "Greet back." }, { type: "text", text: "An earlier answer." }],
                source: {
                  kind: "model",
                  provider: providerOf(api),
                  model: MODEL_ID,
                  replayState: {
                    kind: "pi-ai",
                    version: 1,
                    api,
                    provider: providerOf(api),
                    model: MODEL_ID,
                    stopReason: "stop",
                    blocks: [{ type: "thinking", thinkingSignature: "legacy-sig-XYZ" }, { type: "text" }],
                  },
                },
              },
              finish: { kind: "stop" },
            },
          },
          { type: "turn/end", data: { reason: "completed" } },
        ]),
      )
      yield* h.store.release(id)
      yield* h.loop.load(id)

      server.enqueue({ blocks: [{ type: "text", text: "Now this." }] }, { blocks: [{ type: "text", text: "And that." }] })
      const { lines, value } = yield* stderrLines(Effect.all([h.prompt("And now?", id), h.prompt("More?", id)]))
      expect(value.map((updates) => updates.at(-1))).toEqual([
        { type: "turn-end", reason: "completed" },
        { type: "turn-end", reason: "completed" },
      ])
      const route = `${providerOf(api)}/${MODEL_ID}`
      expect(lines).toEqual([
        `turnlog: INVALID_REPLAY_STATE: session ${id}, message ${legacyId} (${route} -> ${route}) ` +
        `sent as provider-neutral content: legacy flat version-1 pi-ai state\n`,
      ])
      const conversation = conversationOf(server.requests()[0]!.body)
      expect(conversation).toContain("An earlier answer.")
      expect(conversation).not.toContain("legacy-sig-XYZ")
    }))
})

describe("cancel over the wire", () => {
  it.scopedLive("closes the HTTP request; what the user saw is stored without replay state and sent next time", () =>
    Effect.gen(function*() {
      const h = yield* setupFor("anthropic-messages")
      const server = h.server
      // Slow enough that the cancel always lands mid-stream.
      server.enqueue(
        { blocks: [{ type: "reasoning", text: "Thinking it over.", signature: "sig-cut" }, { type: "text", text: "word ".repeat(200) }], delayMs: 50 },
        { blocks: [{ type: "text", text: "Resumed." }] },
      )
      let deltas = 0
      const updates = yield* promptCancelling(h, "talk", (u) => u.type === "text-delta" && ++deltas === 2)
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "cancelled" })
      expect((yield* Effect.promise(() => server.settled(0))).outcome).toBe("client-closed")

      const seen = (type: string) => updates.flatMap((u) => (u.type === type && "text" in u ? [u.text] : [])).join("")
      const message = (yield* h.events()).find((e) => e.type === "assistant/message")!.data
      expect(message.interrupted).toBe(true)
      expect(message.message.source).toEqual({ kind: "model", provider: "lb-anthropic-messages", model: MODEL_ID })
      expect(message.message.content).toEqual([
        { type: "reasoning", text: seen("reasoning-delta") },
        { type: "text", text: seen("text-delta") },
      ])
      expect(seen("text-delta").startsWith("word word")).toBe(true)

      const next = yield* h.prompt("go on")
      expect(next.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const conversation = conversationOf(server.requests()[1]!.body)
      expect(conversation).toContain(JSON.stringify(seen("text-delta")).slice(1, -1))
      expect(conversation).not.toContain("sig-cut")
    }))
})

describe("provider failures over HTTP", () => {
  it.scopedLive("a 500 is retried and the turn completes; the failed attempt stays in the log", () =>
    Effect.gen(function*() {
      const h = yield* setupFor("openai-completions")
      const server = h.server
      server.enqueue({ status: 500 }, { blocks: [{ type: "text", text: "Recovered." }] })
      const updates = yield* h.prompt("hi")
      expect(updates.map((u) => u.type)).toEqual(["turn-start", "retry", "text-delta", "usage", "turn-end"])
      expect(updates[1]).toMatchObject({ type: "retry", attempt: 2, failure: { code: "SERVER", status: 500 } })
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const events = yield* h.events()
      expect(events.filter((e) => e.type === "request/start").map((e) => e.data.attempt)).toEqual([1, 2])
      expect(chunksOf(events).filter((c) => c.type === "finish").map((c) => c.reason.kind)).toEqual(["error", "stop"])
    }))

  it.scopedLive("a 401 is not retried: the turn ends with the AUTH failure", () =>
    Effect.gen(function*() {
      const h = yield* setupFor("anthropic-messages")
      const server = h.server
      server.enqueue({ status: 401 }, { blocks: [{ type: "text", text: "never played" }] })
      const updates = yield* h.prompt("hi")
      expect(updates.map((u) => u.type)).toEqual(["turn-start", "usage", "turn-end"])
      expect(updates[2]).toMatchObject({ type: "turn-end", reason: "error", failure: { code: "AUTH", status: 401 } })
      expect(server.requests()).toHaveLength(1)
      expect(server.pending()).toBe(1)
    }))
})
