// A long session against a provider that holds each answer to the request's
// max_tokens, as a real one does (the loopback, speaking each wire format, cuts
// a longer answer and finishes at the output limit): the loop compacts before
// pi-ai would clamp the answer budget below the model's maxTokens, so every
// answer arrives whole and every summary request gets its own full budget,
// also when a long history is summarised in parts.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ReplayDiagnostics } from "@turnlog/llm"
import { PiAiAdapter } from "@turnlog/llm-pi-ai"
import { MessageId, SessionLog } from "@turnlog/protocol"
import { Memory } from "@turnlog/store"
import { Loopback, OutputLimit } from "@turnlog/testkit"
import type { AgentUpdate } from "../src/AgentLoop.js"
import { setup } from "./support/harness.js"
import { type Api, APIS, KEY, KEY_ENV, MODEL_ID, modelOf, providerOf } from "./support/piAi.js"

const WINDOW = 16_384
const MAX_TOKENS = 4_096
/** A summary request asks for four fifths of the reserve (a quarter of this window). */
const SUMMARY_TOKENS = Math.floor((WINDOW / 4) * 0.8)
const TURNS = 24

const layerFor = (server: Loopback.Server) =>
  PiAiAdapter.layerPiAi({
    providers: Object.fromEntries(APIS.map((api) => [providerOf(api), {
      api,
      baseUrl: server.baseUrl(api),
      apiKeyEnv: KEY_ENV,
      models: [{ id: MODEL_ID, contextWindow: WINDOW, maxTokens: MAX_TOKENS }],
    }])),
  }, { env: { [KEY_ENV]: KEY } }).pipe(Layer.provide(ReplayDiagnostics.layerSilent))

/** About `tokens` tokens (four characters each) of distinct words. */
const words = (label: string, tokens: number) => {
  const out: Array<string> = []
  let chars = 0
  for (let i = 0; chars < tokens * 4; i++) {
    const word = `${label}w${i}`
    out.push(word)
    chars += word.length + 1
  }
  return out.join(" ")
}

/** Reply `n`: about 1,200 tokens, its end marked so a cut one shows. */
const replyText = (n: number) => `Answer ${n}. ${words(`a${n}`, 1_200)} END-${n}`

const textOf = (updates: ReadonlyArray<AgentUpdate>) => updates.flatMap((u) => (u.type === "text-delta" ? [u.text] : [])).join("")

const isSummaryRequest = (body: unknown) => JSON.stringify(body).includes("You summarise conversations")

// Two wires (a local model's and Anthropic's) keep this long test affordable; the answer
// room equals the wire's max tokens on all four (llm-pi-ai's AnswerRoom.test.ts).
describe.each(["openai-completions", "anthropic-messages"] as const)("over the %s wire, a provider holding answers to max_tokens", (api: Api) => {
  it.scopedLive(`${TURNS} long turns past a ${WINDOW}-token window: every answer whole, every request given its full answer budget`, () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => Loopback.start({ honourMaxTokens: true })),
        (s) => Effect.promise(() => s.close()),
      )
      const h = yield* setup([], { llm: layerFor(server), store: Memory.layerMemory, config: { model: modelOf(api) } })
      let queued = 0
      for (let n = 1; n <= TURNS; n++) {
        // Summary requests take a reply too: two are always waiting.
        while (server.pending() < 2) server.enqueue({ blocks: [{ type: "text", text: replyText(++queued) }] })
        const updates = yield* h.prompt(`Question ${n}. ${words(`q${n}`, 1_000)}`)
        expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
        const shown = textOf(updates)
        const k = Number(/^Answer (\d+)\. /.exec(shown)?.[1])
        expect(shown).toBe(replyText(k))
      }

      const budgets = server.requests().map((r) => ({ summary: isSummaryRequest(r.body), asked: OutputLimit.requested(r.body) }))
      expect(budgets.filter((b) => !b.summary).map((b) => b.asked)).toEqual(Array(TURNS).fill(MAX_TOKENS))
      const summaries = budgets.filter((b) => b.summary)
      expect(summaries.length).toBeGreaterThanOrEqual(3)
      expect(summaries.map((b) => b.asked)).toEqual(summaries.map(() => SUMMARY_TOKENS))

      const events = yield* h.events()
      const finishes = events.flatMap((e) => (e.type === "assistant/message" ? [e.data.finish.kind] : []))
      expect(finishes).toEqual(server.requests().map(() => "stop"))
      const compactions = events.filter((e): e is SessionLog.EventOf<"context/compaction"> => e.type === "context/compaction")
      expect(compactions.length).toBe(summaries.length)
      for (const c of compactions) expect(c.data.tokensAfter).toBeLessThan(c.data.tokensBefore)
    }))
})

describe("a long history compacted at once", () => {
  it.scopedLive("is summarised in parts small enough that each summary request gets its full answer budget", () =>
    Effect.gen(function*() {
      const api: Api = "openai-completions"
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => Loopback.start({ honourMaxTokens: true })),
        (s) => Effect.promise(() => s.close()),
      )
      const h = yield* setup([], { llm: layerFor(server), store: Memory.layerMemory, config: { model: modelOf(api) } })
      // Twelve turns of 1,000-token prompts and answers written by an earlier build: far more than one window.
      const id = yield* h.store.create({ cwd: h.cwd })
      const message = (role: "user" | "assistant", n: number) => ({
        id: MessageId.make(`m_${role}${n}`),
        role,
        content: [{ type: "text" as const, text: `${role} ${n}. ${words(`${role[0]}${n}`, 1_000)}` }],
        source: role === "user" ? { kind: "user" as const } : { kind: "model" as const, provider: providerOf(api), model: MODEL_ID },
      })
      const turns: Array<SessionLog.EventInput> = []
      for (let n = 1; n <= 12; n++) {
        turns.push(
          { type: "turn/start", data: {} },
          { type: "user/message", data: { message: message("user", n) } },
          { type: "request/start", data: { provider: providerOf(api), model: MODEL_ID } },
          { type: "assistant/message", data: { message: message("assistant", n), finish: { kind: "stop" } } },
          { type: "turn/end", data: { reason: "completed" } },
        )
      }
      yield* h.store.append(id, SessionLog.stamp(1, turns))
      yield* h.store.flush(id)
      yield* h.store.release(id)
      for (let n = 1; n <= 6; n++) server.enqueue({ blocks: [{ type: "text", text: `Summary ${n}.` }] })

      const compacted = yield* h.loop.compact(id)
      expect(compacted._tag).toBe("compacted")
      const asked = server.requests().map((r) => OutputLimit.requested(r.body))
      expect(asked.length).toBeGreaterThanOrEqual(2)
      expect(asked).toEqual(asked.map(() => SUMMARY_TOKENS))
      const events = yield* h.events(id)
      const compaction = events.find((e) => e.type === "context/compaction")!
      expect(compaction.data).toMatchObject({ summary: `Summary ${asked.length}.` })
    }))
})

describe("a keepRecentTokens that would leave the next answer short", () => {
  it.scopedLive("is kept to less: the request after each compaction still gets its full answer budget", () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => Loopback.start({ honourMaxTokens: true })),
        (s) => Effect.promise(() => s.close()),
      )
      const h = yield* setup([], {
        llm: layerFor(server),
        store: Memory.layerMemory,
        // Kept verbatim, 8,000 tokens and a summary leave pi-ai less than 4,096 for the answer.
        config: { model: modelOf("anthropic-messages"), compaction: { keepRecentTokens: 8_000 } },
      })
      let queued = 0
      for (let n = 1; n <= 8; n++) {
        while (server.pending() < 2) server.enqueue({ blocks: [{ type: "text", text: replyText(++queued) }] })
        const updates = yield* h.prompt(`Question ${n}. ${words(`q${n}`, 1_000)}`)
        expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      }
      const asked = server.requests().filter((r) => !isSummaryRequest(r.body)).map((r) => OutputLimit.requested(r.body))
      expect(asked).toEqual(Array(8).fill(MAX_TOKENS))
      const events = yield* h.events()
      expect(events.filter((e) => e.type === "context/compaction").length).toBeGreaterThanOrEqual(2)
    }))
})
