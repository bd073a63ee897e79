// The HTML page and doctor for sessions the AI SDK adapter wrote: each answer
// is judged by the codec of the adapter that wrote it (an ai-sdk session is
// clean), each turn says which adapter answered, and a session moved between
// adapters shows, in the turn of the move, one INVALID_REPLAY_STATE mark per
// message of the other kind that the request sent provider-neutral.
import { describe, expect, it } from "vitest"
import type { SessionLog } from "@turnlog/protocol"
import * as Doctor from "../src/commands/Doctor.js"
import { SessionFacts } from "../src/html/Facts.js"
import { head, HtmlPage } from "../src/html/HtmlPage.js"

type Kind = "pi-ai" | "ai-sdk"
const route = { provider: "loop", model: "m" }
const signature = (id: string) => Buffer.from(`signature of ${id}`).toString("base64")

/** An answer with signed reasoning and text, with the replay state its adapter writes. */
const answer = (id: string, kind: Kind) => ({
  type: "assistant/message",
  data: {
    message: {
      id,
      role: "assistant",
      content: [{ type: "reasoning", text: `Think (${id}).` }, { type: "text", text: `Answer ${id}.` }],
      source: {
        kind: "model",
        ...route,
        replayState: kind === "pi-ai"
          ? {
            response: { kind: "pi-ai", version: 2, api: "anthropic-messages", ...route, responseId: `msg_${id}`, stopReason: "stop" },
            blocks: [{ type: "reasoning", thinkingSignature: signature(id) }, { type: "text" }],
          }
          : {
            response: { kind: "ai-sdk", version: 1, ...route, sdkProvider: "anthropic.messages", responseId: `msg_${id}` },
            blocks: [{ type: "reasoning", providerMetadata: { anthropic: { signature: signature(id) } } }, { type: "text" }],
          },
      },
    },
    finish: { kind: "stop" },
    usage: { inputTokens: 10, outputTokens: 5 },
  },
})

/** One turn per kind in `kinds`: a prompt, a request, an answer written by that kind. */
const session = (kinds: ReadonlyArray<Kind>): Array<SessionLog.SessionEvent> =>
  kinds.flatMap((kind, i) => [
    { type: "turn/start", data: {} },
    { type: "user/message", data: { message: { id: `u${i + 1}`, role: "user", content: [{ type: "text", text: `Q${i + 1}?` }], source: { kind: "user" } } } },
    { type: "request/start", data: { ...route, step: 1, attempt: 1 } },
    answer(`a${i + 1}`, kind),
    { type: "turn/end", data: { reason: "completed" } },
  ]).map((e, i) => ({ seq: i + 1, time: `2026-01-01T10:00:${String(i).padStart(2, "0")}.000Z`, ...e })) as unknown as Array<
    SessionLog.SessionEvent
  >

const header = { type: "session", version: 2, id: "s-adapters", createdAt: "2026-01-01T10:00:00.000Z", cwd: "/w" } as unknown as SessionLog.SessionHeader

const render = (events: ReadonlyArray<SessionLog.SessionEvent>) => {
  const facts = new SessionFacts()
  for (const event of events) facts.add(event)
  const page = new HtmlPage(header, facts.keptFrom)
  return head({ header, facts, store: "jsonl", version: "0.1.0" }) + page.add(events) + page.finish({})
}

const section = (html: string, n: number) => html.slice(html.indexOf(`id="turn-${n}"`), html.indexOf("</section>", html.indexOf(`id="turn-${n}"`)))
const marks = (html: string) => [...html.matchAll(/<div class="who">INVALID_REPLAY_STATE<\/div><p>(.*?)<\/p>/g)].map((m) => m[1])
const meta = (html: string) => /<div class="meta">(.*?)<\/div>/.exec(html)?.[1]

const pi = (id: string) =>
  `Message <code>${id}</code> (loop/m), written by the pi-ai adapter, is sent by the ai-sdk adapter from this turn on as provider-neutral content: replay state kind &quot;pi-ai&quot; is not &quot;ai-sdk&quot;`
const sdk = (id: string) =>
  `Message <code>${id}</code> (loop/m), written by the ai-sdk adapter, is sent by the pi-ai adapter from this turn on as provider-neutral content: replay state kind &quot;ai-sdk&quot; is not &quot;pi-ai&quot;`

describe("the HTML page of an ai-sdk session", () => {
  it("marks nothing: each answer replays natively under the adapter that wrote it, and each turn names that adapter", () => {
    const html = render(session(["ai-sdk", "ai-sdk"]))
    expect(marks(html)).toEqual([])
    expect(html).not.toContain("degraded")
    expect(meta(section(html, 2))).toBe(
      `<time datetime="2026-01-01T10:00:05.000Z">2026-01-01 10:00:05Z</time> · loop/m · adapter ai-sdk · 10 in / 5 out tokens`,
    )
  })
})

describe("the HTML page of a session moved pi-ai → ai-sdk → ai-sdk → pi-ai", () => {
  const html = render(session(["pi-ai", "ai-sdk", "ai-sdk", "pi-ai"]))

  it("marks the pi-ai answer in the turn the AI SDK adapter took over, once", () => {
    expect(marks(section(html, 1))).toEqual([])
    expect(marks(section(html, 2))).toEqual([pi("a1")])
    expect(marks(section(html, 3))).toEqual([])
  })

  it("marks both ai-sdk answers when pi-ai takes over again, and not its own first answer", () => {
    expect(marks(section(html, 4))).toEqual([sdk("a2"), sdk("a3")])
  })

  it("names each turn's adapter and tags the turns of a move as degraded", () => {
    expect([1, 2, 3, 4].map((n) => / · (adapters? [^·]*) · /.exec(meta(section(html, n)) ?? "")?.[1])).toEqual([
      "adapter pi-ai",
      "adapter ai-sdk",
      "adapter ai-sdk",
      "adapter pi-ai",
    ])
    expect([...html.matchAll(/<section class="[^"]*" id="turn-(\d)"[^>]* data-badges="([^"]*)">/g)].map((m) => [m[1], m[2]])).toEqual([
      ["1", ""],
      ["2", "degraded"],
      ["3", ""],
      ["4", "degraded"],
    ])
  })

  it("leaves out of the move what a compaction took out of the history", () => {
    const events = session(["pi-ai", "ai-sdk"])
    // A compaction between the turns keeps history from the second turn's first event (seq 6).
    const compaction = {
      seq: 6,
      time: "2026-01-01T10:00:05.500Z",
      type: "context/compaction",
      data: { summary: "Q1 was answered.", firstKeptSeq: 7, tokensBefore: 100, tokensAfter: 10, ...route },
    } as unknown as SessionLog.SessionEvent
    const moved = [...events.slice(0, 5), compaction, ...events.slice(5).map((e) => ({ ...e, seq: e.seq + 1 }))]
    expect(marks(render(moved))).toEqual([])
  })
})

describe("doctor", () => {
  const report = (kinds: ReadonlyArray<Kind>) => Doctor.render(Doctor.diagnose({ header, events: session(kinds), recovery: {} }))

  it("reports an ai-sdk session clean", () => {
    expect(report(["ai-sdk", "ai-sdk"])).toBe(
      "session s-adapters (/w): 10 events, 2 assistant messages: 2 replay natively, 0 degrade, 0 without replay state\n  ok",
    )
  })

  it("says which adapters wrote a moved session, and that it is clean under each", () => {
    expect(report(["pi-ai", "ai-sdk", "ai-sdk", "pi-ai"])).toBe(
      "session s-adapters (/w): 20 events, 4 assistant messages: 4 replay natively, 0 degrade, 0 without replay state\n" +
        "  written by 2 adapters: pi-ai wrote 2 messages, ai-sdk 2; a request under one sends the others' messages provider-neutral (INVALID_REPLAY_STATE once per message)\n" +
        "  ok",
    )
  })
})
