// Long sessions through the real composition (pi-ai against the loopback
// speaking each wire format, a model with a 16,384-token window): compaction
// before requests and after a provider's overflow refusal, a fresh process
// continuing, a failed summary leaving the session as it was, and the
// reactive repair of replay state a provider refuses.
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ReplayDiagnostics } from "@turnlog/llm"
import { PiAiAdapter } from "@turnlog/llm-pi-ai"
import { SessionLog } from "@turnlog/protocol"
import { Jsonl } from "@turnlog/store"
import { Loopback } from "@turnlog/testkit"
import type * as AgentLoop from "../src/AgentLoop.js"
import type { AgentUpdate } from "../src/AgentLoop.js"
import * as Tools from "../src/Tools.js"
import { setup } from "./support/harness.js"
import { type Api, APIS, KEY, KEY_ENV, MODEL_ID, modelOf, providerOf } from "./support/piAi.js"

const WINDOW = 16_384

/** The loopback's providers, each with one model of a small window. */
const smallLayer = (server: Loopback.Server) =>
  PiAiAdapter.layerPiAi({
    providers: Object.fromEntries(APIS.map((api) => [providerOf(api), {
      api,
      baseUrl: server.baseUrl(api),
      apiKeyEnv: KEY_ENV,
      models: [{ id: MODEL_ID, contextWindow: WINDOW, maxTokens: 4096 }],
    }])),
  }, { env: { [KEY_ENV]: KEY } }).pipe(Layer.provide(ReplayDiagnostics.layerSilent))

/** About `tokens` tokens of distinct words (the loopback counts four characters to a token). */
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

const answerOf = (n: number) => `Answer ${n}. ${words(`a${n}`, 700)}`

const textOf = (updates: ReadonlyArray<AgentUpdate>) => updates.flatMap((u) => (u.type === "text-delta" ? [u.text] : [])).join("")

const of = <T extends SessionLog.EventType>(events: ReadonlyArray<SessionLog.SessionEvent>, type: T) =>
  events.filter((e): e is SessionLog.EventOf<T> => e.type === type)

const setupFor = (api: Api, home?: string, compaction?: AgentLoop.CompactionSetting) =>
  Effect.gen(function*() {
    const server = yield* Loopback.make
    server.setContextWindow(WINDOW)
    const h = yield* setup([], {
      llm: smallLayer(server),
      config: { model: modelOf(api), ...(compaction === undefined ? {} : { compaction }) },
      // On disk: a fresh process continues the session from its home.
      ...(home === undefined ? { disk: true } : { store: Jsonl.layerJsonl({ home }) }),
    })
    return { ...h, server }
  })

/** Every request the loopback took fitted the window with a quarter of the reserve left for the answer. */
const expectAllFitted = (server: Loopback.Server) => {
  for (const request of server.requests()) {
    expect(request.refused).toBe(undefined)
    expect(request.status).toBe(200)
    expect(Math.ceil(JSON.stringify(request.body).length / 4)).toBeLessThanOrEqual(WINDOW - 1024)
  }
}

describe.each(APIS)("over the %s wire, a session past a 16,384-token window", (api) => {
  it.scopedLive("keeps answering in full, every request fits, the log holds compactions, a fresh process continues", () =>
    Effect.gen(function*() {
      const h = yield* setupFor(api)
      const turns = 14
      for (let n = 1; n <= turns; n++) {
        // Summary requests take a reply too: two are always waiting.
        while (h.server.pending() < 2) h.server.enqueue({ blocks: [{ type: "text", text: answerOf(n) }] })
        const before = h.server.requests().length
        const updates = yield* h.prompt(`Question ${n}. ${words(`q${n}`, 700)}`)
        expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
        // The answer shown is one whole reply (the queue's replies are whole answers).
        expect(textOf(updates)).toMatch(/^Answer \d+\. /)
        expect(textOf(updates).length).toBeGreaterThan(2800)
        expect(h.server.requests().length).toBeGreaterThan(before)
      }
      expectAllFitted(h.server)
      const events = yield* h.events()
      const compactions = of(events, "context/compaction")
      expect(compactions.length).toBeGreaterThanOrEqual(2)
      for (const c of compactions) {
        expect(c.data.provider).toBe(providerOf(api))
        expect(c.data.tokensAfter).toBeLessThan(c.data.tokensBefore)
        // Compacted when the request would have left the answer less than its 4,096 tokens: pi-ai keeps
        // 4,096 more free and counts 3.5 characters to a token (about 7,168 of these 4-character tokens).
        expect(c.data.tokensBefore).toBeGreaterThan(7_000)
        // The summary request came first, marked, and its answer is the summary.
        const marked = of(events, "request/start").filter((r) => r.data.purpose === "compaction" && r.seq < c.seq)
        expect(marked.length).toBeGreaterThan(0)
      }

      // Another process (a fresh adapter and loop over the same home) continues the session.
      yield* h.store.release(h.id)
      const fresh = yield* setupFor(api, h.home)
      fresh.server.enqueue({ blocks: [{ type: "text", text: "Continued." }] }, { blocks: [{ type: "text", text: "Continued." }] })
      const updates = yield* fresh.prompt("And now?", h.id)
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      expectAllFitted(fresh.server)
      const sent = JSON.stringify(fresh.server.requests().at(-1)!.body)
      expect(sent).toContain("was compacted to fit the context window")
      expect(sent).toContain("And now?")
    }))
})

/**
 * `n` answered turns of about 1,400 tokens each: with `KEEP_LESS`, history a
 * compaction has something to cut from while every request still leaves the
 * answer its budget (four turns).
 */
const history = (h: { server: Loopback.Server; prompt: (text: string) => Effect.Effect<ReadonlyArray<AgentUpdate>, unknown> }, n: number) =>
  Effect.gen(function*() {
    for (let i = 1; i <= n; i++) {
      h.server.enqueue({ blocks: [{ type: "text", text: answerOf(i) }] })
      const updates = yield* h.prompt(`Question ${i}. ${words(`q${i}`, 700)}`)
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
    }
  })

const KEEP_LESS = { keepRecentTokens: 3_000 }

const SUMMARY = "The user asked six long questions; each was answered in full."

describe.each(APIS)("over the %s wire, a provider refusing the request as too large", (api) => {
  it.scopedLive("compacts and retries once, logged as the step's next attempt", () =>
    Effect.gen(function*() {
      const h = yield* setupFor(api, undefined, KEEP_LESS)
      yield* history(h, 4)
      expect(of(yield* h.events(), "context/compaction")).toEqual([])
      h.server.enqueue(
        { status: 400, kind: "context-overflow" },
        { blocks: [{ type: "text", text: SUMMARY }] },
        { blocks: [{ type: "text", text: "Answer after compaction." }] },
      )
      const updates = yield* h.prompt("One more.")
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      expect(textOf(updates)).toBe("Answer after compaction.")
      expect(updates.filter((u) => u.type === "retry")).toMatchObject([
        { attempt: 2, delayMs: 0, failure: { code: "CONTEXT_WINDOW_EXCEEDED" } },
      ])
      const events = yield* h.events()
      const turn = events.slice(events.findLastIndex((e) => e.type === "turn/start"))
      expect(
        turn.filter((e) => !SessionLog.isRawChunk(e.type)).map((e) =>
          e.type === "request/start" ? `request ${e.data.attempt}${e.data.purpose ? ` ${e.data.purpose}` : ""}` : e.type
        ),
      ).toEqual([
        "turn/start",
        "user/message",
        "request 1",
        "request 1 compaction",
        "assistant/message",
        "context/compaction",
        "request 2",
        "assistant/message",
        "turn/end",
      ])
      const [compaction] = of(events, "context/compaction")
      expect(compaction!.data.summary).toBe(SUMMARY)
      const last = JSON.stringify(h.server.requests().at(-1)!.body)
      expect(last).toContain(SUMMARY)
      expect(last).not.toContain("Question 1.")
      expect(last).toContain("One more.")
    }))
})

describe("a compaction that fails", () => {
  it.scopedLive("a request still refused as too large after compacting ends the turn saying so, without a loop", () =>
    Effect.gen(function*() {
      const h = yield* setupFor("openai-responses", undefined, KEEP_LESS)
      yield* history(h, 4)
      h.server.enqueue(
        { status: 400, kind: "context-overflow" },
        { blocks: [{ type: "text", text: SUMMARY }] },
        { status: 400, kind: "context-overflow" },
        { blocks: [{ type: "text", text: "Never played." }] },
      )
      const updates = yield* h.prompt("One more.")
      expect(updates.at(-1)).toMatchObject({
        type: "turn-end",
        reason: "error",
        failure: { code: "CONTEXT_WINDOW_EXCEEDED", message: expect.stringMatching(/ \(still too large after compacting\)$/) },
      })
      expect(updates.filter((u) => u.type === "retry")).toHaveLength(1)
      expect(h.server.pending()).toBe(1)
      expect(of(yield* h.events(), "context/compaction")).toHaveLength(1)
    }))

  it.scopedLive("ends the turn with a sentence, writes no compaction, and the next turn compacts and answers", () =>
    Effect.gen(function*() {
      const h = yield* setupFor("anthropic-messages", undefined, KEEP_LESS)
      yield* history(h, 4)
      h.server.enqueue({ status: 400, kind: "context-overflow" }, { status: 400, message: "the summary request was refused" })
      const failed = yield* h.prompt("One more.")
      expect(failed.at(-1)).toMatchObject({
        type: "turn-end",
        reason: "error",
        failure: { code: "COMPACTION_FAILED" },
      })
      const message = (failed.at(-1) as { failure: { message: string } }).failure.message
      expect(message).toContain("16384-token context window")
      expect(message).toContain("the summary request was refused")
      expect(message).toContain("the session is unchanged")
      expect(failed.some((u) => u.type === "text-delta")).toBe(false)
      expect(of(yield* h.events(), "context/compaction")).toEqual([])

      h.server.enqueue(
        { status: 400, kind: "context-overflow" },
        { blocks: [{ type: "text", text: SUMMARY }] },
        { blocks: [{ type: "text", text: "Answered." }] },
      )
      const updates = yield* h.prompt("Again.")
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const last = JSON.stringify(h.server.requests().at(-1)!.body)
      expect(last).toContain(SUMMARY)
      // The failed summary request is not conversation.
      expect(last).not.toContain("the summary request was refused")
    }))

  it.scopedLive("a summary request that fails transiently is tried again, each attempt logged, and the turn answers", () =>
    Effect.gen(function*() {
      const h = yield* setupFor("anthropic-messages", undefined, KEEP_LESS)
      yield* history(h, 4)
      h.server.enqueue(
        { status: 400, kind: "context-overflow" },
        { status: 503, message: "overloaded, try again" },
        { blocks: [{ type: "text", text: SUMMARY }] },
        { blocks: [{ type: "text", text: "Answered after a retry." }] },
      )
      const updates = yield* h.prompt("One more.")
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      expect(textOf(updates)).toBe("Answered after a retry.")
      const retries = updates.filter((u) => u.type === "retry")
      // The overflow's own repair, then the summary's transient failure.
      expect(retries.map((u) => (u as { failure: { code: string } }).failure.code)).toEqual(["CONTEXT_WINDOW_EXCEEDED", "SERVER"])
      const events = yield* h.events()
      const summaryStarts = of(events, "request/start").filter((e) => e.data.purpose === "compaction")
      expect(summaryStarts.map((e) => e.data.attempt)).toEqual([1, 2])
      expect(of(events, "context/compaction").map((e) => e.data.summary)).toEqual([SUMMARY])
      expect(h.server.pending()).toBe(0)
    }))

  it.scopedLive("cut short before its event is durable (the process dies): the session continues as if it had not started", () =>
    Effect.gen(function*() {
      let dying = false
      const server = yield* Loopback.make
      const h = yield* setup([], {
        llm: smallLayer(server),
        config: { model: modelOf("openai-completions"), compaction: KEEP_LESS },
        failAppend: (events) => dying && events.some((e) => e.type === "context/compaction"),
      })
      const s = { ...h, server }
      yield* history(s, 4)
      dying = true
      server.enqueue({ status: 400, kind: "context-overflow" }, { blocks: [{ type: "text", text: "A summary never recorded." }] })
      const died = yield* Effect.either(s.prompt("One more."))
      expect(died._tag).toBe("Left")
      dying = false
      const afterCrash = yield* h.events()
      expect(of(afterCrash, "context/compaction")).toEqual([])
      expect(of(afterCrash, "request/start").at(-1)!.data.purpose).toBe("compaction")

      server.enqueue({ blocks: [{ type: "text", text: "Answered without compacting." }] })
      const updates = yield* s.prompt("Again.")
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const last = JSON.stringify(server.requests().at(-1)!.body)
      expect(last).not.toContain("A summary never recorded.")
      expect(last).not.toContain("was compacted")
      expect(last).toContain("Question 1.")
      expect(last).toContain("Again.")
    }))
})

describe("a prompt larger than the whole window", () => {
  it.scopedLive("is refused before it is logged or sent, with its size and the window; the session goes on", () =>
    Effect.gen(function*() {
      const h = yield* setupFor("openai-responses")
      yield* history(h, 1)
      const before = yield* h.events()
      const updates = yield* h.prompt(words("huge", 17_000))
      expect(updates).toHaveLength(1)
      expect(updates[0]).toMatchObject({ type: "turn-end", reason: "error", failure: { code: "PROMPT_TOO_LARGE" } })
      const message = (updates[0] as { failure: { message: string } }).failure.message
      expect(message).toMatch(
        /^the prompt is about 170\d\d tokens and lb-openai-responses\/loop-1's context window is 16384 tokens \([1-9]\d* of them taken by the system prompt and tools, 1024 kept for the answer\): it cannot fit even in an empty context, so it was neither sent nor logged$/,
      )
      expect(yield* h.events()).toEqual(before)
      expect(h.server.requests()).toHaveLength(1)
      h.server.enqueue({ blocks: [{ type: "text", text: "Still here." }] })
      expect((yield* h.prompt("A small one.")).at(-1)).toEqual({ type: "turn-end", reason: "completed" })
    }))
})

describe("tools whose descriptions alone outgrow the window", () => {
  it.scopedLive("are named with their server and what they cost, not blamed on the prompt; nothing is sent or logged", () =>
    Effect.gen(function*() {
      const server = yield* Loopback.make
      server.setContextWindow(WINDOW)
      const spec = (i: number) => ({
        name: `huge__tool_${i}`,
        description: `Tool number ${i} of a server that declares far too many`,
        parameters: { type: "object", properties: { q: { type: "string" } } },
      })
      const extraTools = Array.from({ length: 5000 }, (_, i): Tools.Tool => ({
        origin: `MCP server "huge"`,
        spec: spec(i),
        display: (args) => Tools.unknownDisplay(spec(i).name, args),
        prepare: () => Effect.die("never called"),
      }))
      const h = yield* setup([], { llm: smallLayer(server), config: { model: modelOf("openai-responses") }, extraTools })
      const before = yield* h.events()
      const updates = yield* h.prompt("Hello.")
      const cost = Math.ceil(JSON.stringify(extraTools.map((t) => t.spec)).length / 4)
      expect(updates).toEqual([{
        type: "turn-end",
        reason: "error",
        failure: {
          code: "TOOLS_TOO_LARGE",
          message: expect.stringMatching(
            new RegExp(
              `^the tools of MCP server "huge" \\(5000 tools, about ${cost} tokens\\) do not fit lb-openai-responses/loop-1's context window of 16384 tokens \\(\\d+ tokens taken by the system prompt and all tools, 1024 kept for the answer\\): no prompt fits beside them, so this one was neither sent nor logged; leave that server out of the session or choose a model with a larger window$`,
            ),
          ),
        },
      }])
      expect(yield* h.events()).toEqual(before)
      expect(server.requests()).toHaveLength(0)
    }))
})

describe("a session written before compaction existed", () => {
  it.scopedLive("continues unchanged: the whole history is sent and nothing is compacted", () =>
    Effect.gen(function*() {
      const h = yield* setupFor("google-generative-ai")
      const id = yield* h.store.create({ cwd: h.cwd })
      const message = (role: "user" | "assistant", mid: string, text: string) => ({
        id: mid as never,
        role,
        content: [{ type: "text" as const, text }],
        source: role === "user" ? { kind: "user" as const } : { kind: "model" as const, provider: providerOf("google-generative-ai"), model: MODEL_ID },
      })
      yield* h.store.append(
        id,
        SessionLog.stamp(1, [
          { type: "turn/start", data: {} },
          { type: "user/message", data: { message: message("user", "m_u1", "an old question") } },
          { type: "request/start", data: { provider: providerOf("google-generative-ai"), model: MODEL_ID } },
          { type: "assistant/message", data: { message: message("assistant", "m_a1", "an old answer"), finish: { kind: "stop" } } },
          { type: "turn/end", data: { reason: "completed" } },
        ]),
      )
      yield* h.store.flush(id)
      yield* h.store.release(id)
      h.server.enqueue({ blocks: [{ type: "text", text: "A new answer." }] })
      expect((yield* h.prompt("a new question", id)).at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const sent = JSON.stringify(h.server.requests()[0]!.body)
      expect(sent.indexOf("an old question")).toBeLessThan(sent.indexOf("an old answer"))
      expect(sent.indexOf("an old answer")).toBeLessThan(sent.indexOf("a new question"))
      expect(sent).not.toContain("compacted")
      const events = yield* h.events(id)
      expect(events.map((e) => e.type).filter((t) => !SessionLog.isRawChunk(t))).toEqual([
        "turn/start",
        "user/message",
        "request/start",
        "assistant/message",
        "turn/end",
        "turn/start",
        "user/message",
        "request/start",
        "assistant/message",
        "turn/end",
      ])
    }))
})

describe("compaction settings that do not suit the model", () => {
  it.scopedLive("end the turn before any request with a sentence naming the field and the window", () =>
    Effect.gen(function*() {
      const server = yield* Loopback.make
      const h = yield* setup([], { llm: smallLayer(server), config: { model: modelOf("anthropic-messages"), compaction: { reserveTokens: 9000 } } })
      const updates = yield* h.prompt("hello")
      expect(updates.at(-1)).toEqual({
        type: "turn-end",
        reason: "error",
        failure: {
          code: "INVALID_SETTINGS",
          message: "compaction.reserveTokens is 9000, more than half of the model's 16384-token context window: use at most 8192",
        },
      })
      expect(server.requests()).toEqual([])
    }))
})

describe("a tool result larger than its share of the window", () => {
  it.scopedLive("is sent cut (head and tail, the cut stated) while the log keeps it whole", () =>
    Effect.gen(function*() {
      const h = yield* setupFor("openai-completions")
      const big = `HEAD ${"0123456789".repeat(4_000)} TAIL`
      fs.writeFileSync(path.join(h.cwd, "big.txt"), big)
      h.server.enqueue(
        {
          blocks: [{ type: "tool-call", id: "call_big", name: "read_file", arguments: '{"path":"big.txt"}' }],
          finish: "tool-calls",
        },
        { blocks: [{ type: "text", text: "Read it." }] },
      )
      const updates = yield* h.prompt("read big.txt")
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const results = of(yield* h.events(), "tool/result")
      const stored = results[0]!.data.message.content[0] as { content: string }
      expect(stored.content).toContain(big)
      const sent = JSON.stringify(h.server.requests()[1]!.body)
      expect(sent).toContain("HEAD 0123")
      expect(sent).toContain("6789 TAIL")
      expect(sent).toMatch(/characters were cut here to fit the context window; the start and the end are kept/)
      // The limit is a quarter of the window, four characters a token: 16,384 characters and the notice.
      expect(sent.length).toBeLessThan(big.length)
      expectAllFitted(h.server)
    }))
})
