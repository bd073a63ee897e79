import { describe, expect, it } from "@effect/vitest"
import { Envelope } from "@turnlog/envelope"
import { Either, Schema } from "effect"

const response = { kind: "pi-ai", version: 2, api: "anthropic-messages", responseId: "msg_1" }
const a = { type: "text", textSignature: "sig-a" }
const t = { type: "tool-call", thoughtSignature: "sig-t" }
const r = { type: "reasoning", thinkingSignature: "sig-r" }

describe("Envelope.align", () => {
  it("(a) passes an envelope without entries through as the same object, even when blocks were dropped", () => {
    const envelope: Envelope.ReplayEnvelope = { response }
    expect(Envelope.align(envelope, 3, [true, false, true])).toBe(envelope)
    expect(Envelope.align(envelope, 0, [])).toBe(envelope)
  })

  it("(b) discards the envelope whole when its entries do not number the streamed blocks", () => {
    expect(Envelope.align({ response, blocks: [a] }, 2, [true, true])).toBeUndefined()
    expect(Envelope.align({ response, blocks: [a, t, r] }, 2, [true, false])).toBeUndefined()
    expect(Envelope.align({ response, blocks: [] }, 1, [true])).toBeUndefined()
  })

  it("(c) passes the envelope through as the same object when nothing was dropped", () => {
    const envelope = { response, blocks: [a, t, r] }
    expect(Envelope.align(envelope, 3, [true, true, true])).toBe(envelope)
    const none = { response, blocks: [] }
    expect(Envelope.align(none, 0, [])).toBe(none)
  })

  it("(d) keeps the entries at the kept positions, and the response as it was", () => {
    const envelope = { response, blocks: [a, t, r] }
    const aligned = Envelope.align(envelope, 3, [true, false, true])
    expect(aligned).toStrictEqual({ response, blocks: [a, r] })
    expect(aligned?.response).toBe(response)
    expect(envelope.blocks).toStrictEqual([a, t, r])
  })

  it("(d) leaves an empty entry list when every block was dropped", () => {
    expect(Envelope.align({ response, blocks: [t] }, 1, [false])).toStrictEqual({ response, blocks: [] })
  })

  it("counts a missing mask entry as dropped", () => {
    expect(Envelope.align({ response, blocks: [a, t, r] }, 3, [true])).toStrictEqual({ response, blocks: [a] })
  })

  it("discards what is not an envelope or has entries that are not a list", () => {
    const malformed: ReadonlyArray<unknown> = [
      null,
      42,
      "envelope",
      [a, t],
      { response, blocks: null },
      { response, blocks: "abc" },
      { response, blocks: { length: 2 } },
    ]
    for (const value of malformed) {
      expect(Envelope.align(value as Envelope.ReplayEnvelope, 2, [true, false])).toBeUndefined()
    }
  })

  it("produces envelopes the schema accepts and that survive a log line", () => {
    const aligned = Envelope.align({ response, blocks: [a, t, r] }, 3, [false, true, true])
    const line = JSON.stringify(aligned)
    expect(Schema.decodeUnknownEither(Schema.parseJson(Envelope.ReplayEnvelope))(line)).toStrictEqual(
      Either.right({ response, blocks: [t, r] }),
    )
  })
})
