import { describe, expect, it } from "@effect/vitest"
import type { AssistantMessage } from "@earendil-works/pi-ai"
import { Effect } from "effect"
import { type ReplayCodec, type ReplayDiagnostic, SessionHistory } from "@turnlog/history"
import type { Message } from "@turnlog/protocol"
import { PiAiReplay } from "@turnlog/llm-pi-ai"
import { assistantMessage, durableBlocks, piAssistant, userMessage } from "./fixtures.js"

const counting = () => {
  const seen: Array<string> = []
  const codec: ReplayCodec<AssistantMessage> = {
    ...PiAiReplay.codec,
    decode: (m) => {
      seen.push(m.id)
      return PiAiReplay.codec.decode(m)
    },
  }
  return { codec, seen }
}

const step = (n: number): ReadonlyArray<Message> => {
  const native = piAssistant([{ type: "text", text: `answer ${n}`, textSignature: `sig${n}` }])
  return [
    userMessage(`u${n}`, `question ${n}`),
    assistantMessage(`a${n}`, durableBlocks(native), PiAiReplay.toReplayState(native)),
  ]
}

describe("SessionHistory", () => {
  const diagnostics: Array<ReplayDiagnostic> = []
  const options = { targetRoute: "acme/m1", report: (ds: ReadonlyArray<ReplayDiagnostic>) => Effect.sync(() => void diagnostics.push(...ds)) }

  it("a growing history decodes only what is new, and answers every assistant message in order", () => {
    const { codec, seen } = counting()
    const session = SessionHistory.make(codec)
    const history = [...step(0), ...step(1)]
    const first = Effect.runSync(session.reconstruct(history, options))
    const firstAnswers = [...first]
    expect(first.map((m) => m.content[0])).toEqual([
      { type: "text", text: "answer 0", textSignature: "sig0" },
      { type: "text", text: "answer 1", textSignature: "sig1" },
    ])
    const longer = [...history, ...step(2), userMessage("u3", "more")]
    const second = Effect.runSync(session.reconstruct(longer, options))
    expect(second.map((m) => m.content[0] && "text" in m.content[0] ? m.content[0].text : "")).toEqual([
      "answer 0",
      "answer 1",
      "answer 2",
    ])
    expect(seen).toEqual(["a0", "a1", "a2"])
    // the earlier answer is still a prefix of the later one: the same native objects, in order
    expect(second.slice(0, 2)).toEqual(firstAnswers)
    expect(second[0]).toBe(firstAnswers[0])
  })

  it("a history that does not extend the last one is reconstructed whole, still decoding each message once", () => {
    const { codec, seen } = counting()
    const session = SessionHistory.make(codec)
    Effect.runSync(session.reconstruct([...step(0), ...step(1)], options))
    const other = [...step(1), ...step(2)]
    const out = Effect.runSync(session.reconstruct(other, options))
    expect(out.map((m) => m.content[0] && "text" in m.content[0] ? m.content[0].text : "")).toEqual(["answer 1", "answer 2"])
    expect(seen).toEqual(["a0", "a1", "a2"])
    expect(diagnostics).toEqual([])
  })

  it("a message sent again without its replay state (a replay/degrade) is sent provider-neutral, not as its earlier native answer", () => {
    const { codec } = counting()
    const session = SessionHistory.make(codec)
    const history = [...step(0), ...step(1)]
    const first = Effect.runSync(session.reconstruct(history, options))
    expect(first[0]!.content[0]).toEqual({ type: "text", text: "answer 0", textSignature: "sig0" })
    // The same ids, the first answer without its state: what History.fromEvents sends after a degrade.
    const a0 = history[1]!
    const degraded: Message = { ...a0, source: { kind: "model", provider: "acme", model: "m1" } }
    const again = Effect.runSync(session.reconstruct([history[0]!, degraded, ...history.slice(2), userMessage("u2", "more")], options))
    expect(again[0]!.content[0]).toEqual({ type: "text", text: "answer 0" })
    expect(again[1]!.content[0]).toEqual({ type: "text", text: "answer 1", textSignature: "sig1" })
  })

  it("with the caller's history revision, a degrade is told by the revision: the same one extends, a new one starts over", () => {
    const { codec, seen } = counting()
    const session = SessionHistory.make(codec)
    const history = [...step(0), ...step(1)]
    Effect.runSync(session.reconstruct(history, options, 0))
    // A new request, the same revision: only the new answer is decoded.
    const longer = [...history, ...step(2)]
    Effect.runSync(session.reconstruct(longer, options, 0))
    expect(seen).toEqual(["a0", "a1", "a2"])
    // The log degraded the first answer: a new revision, the whole history again, the first answer neutral.
    const degraded: Message = { ...longer[1]!, source: { kind: "model", provider: "acme", model: "m1" } }
    const again = Effect.runSync(session.reconstruct([longer[0]!, degraded, ...longer.slice(2), userMessage("u3", "more")], options, 1))
    expect(again.map((m) => m.content[0])).toEqual([
      { type: "text", text: "answer 0" },
      { type: "text", text: "answer 1", textSignature: "sig1" },
      { type: "text", text: "answer 2", textSignature: "sig2" },
    ])
  })
})
