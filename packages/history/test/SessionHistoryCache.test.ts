/**
 * The per-session histories an adapter keeps (`SessionHistory.cache`): a
 * session's next request decodes only what is new; past `maxSessions` the
 * least recently used session is let go and decodes its history whole again;
 * a request without a session keeps nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { type Message, MessageId, SessionId } from "@turnlog/protocol"
import { type ReplayCodec, SessionHistory } from "@turnlog/history"

const turn = (session: string, n: number): Array<Message> => [
  { id: MessageId.make(`${session}-u${n}`), role: "user", content: [{ type: "text", text: `q${n}` }], source: { kind: "user" } },
  {
    id: MessageId.make(`${session}-a${n}`),
    role: "assistant",
    content: [{ type: "text", text: `a${n}` }],
    source: { kind: "model", provider: "acme", model: "m1", replayState: { ok: true } },
  },
]

const counting = () => {
  const decoded: Array<string> = []
  const codec: ReplayCodec<string> = {
    kind: "toy",
    decode: (m) => {
      decoded.push(m.id)
      return Exit.succeed(m.id)
    },
    foreign: (m) => `foreign ${m.id}`,
  }
  return { codec, decoded }
}

const options = { targetRoute: "acme/m1", report: () => Effect.void }

describe("SessionHistory.cache", () => {
  it("keeps a history per session, letting the least recently used go past maxSessions", () => {
    const { codec, decoded } = counting()
    const historyOf = SessionHistory.cache(codec, 2)
    const a = SessionId.make("a")
    const b = SessionId.make("b")
    const c = SessionId.make("c")
    const send = (id: SessionId, turns: number) =>
      Effect.runSync(historyOf(id).reconstruct(Array.from({ length: turns }, (_, n) => turn(id, n)).flat(), options))

    expect(send(a, 1)).toEqual(["a-a0"])
    expect(send(b, 1)).toEqual(["b-a0"])
    expect(send(a, 2)).toEqual(["a-a0", "a-a1"])
    expect(decoded.splice(0)).toEqual(["a-a0", "b-a0", "a-a1"])
    // c pushes out b, the least recently used; a is kept and decodes only what is new.
    send(c, 1)
    send(a, 3)
    expect(decoded.splice(0)).toEqual(["c-a0", "a-a2"])
    expect(send(b, 2)).toEqual(["b-a0", "b-a1"])
    expect(decoded.splice(0)).toEqual(["b-a0", "b-a1"])
  })

  it("gives a request without a session a history of its own", () => {
    const { codec, decoded } = counting()
    const historyOf = SessionHistory.cache(codec, 2)
    const messages = turn("x", 0)
    Effect.runSync(historyOf(undefined).reconstruct(messages, options))
    Effect.runSync(historyOf(undefined).reconstruct(messages, options))
    expect(decoded).toEqual(["x-a0", "x-a0"])
  })
})
