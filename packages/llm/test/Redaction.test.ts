// Redaction of credential values: whole texts, texts arriving in deltas (split
// anywhere), stream chunks, and the adapter seam in both directions.
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, FastCheck as fc, Stream } from "effect"
import type { Message, StreamChunk } from "@turnlog/protocol"
import type { LlmRequest, Service } from "../src/LlmAdapter.js"
import * as Redacting from "../src/Redacting.js"
import * as Redaction from "../src/Redaction.js"

const KEY = "sk-test-0123456789abcdef"
const redactor = Redaction.make([KEY, "short", undefined, "  ", `${KEY}\r`])

/** Feeds `pieces` one by one and returns everything released, the rest included. */
const streamed = (r: Redaction.Redactor, pieces: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  let held = ""
  for (const piece of pieces) {
    const next = Redaction.feed(r, held, piece)
    out.push(next.out)
    held = next.held
  }
  out.push(Redaction.text(r, held))
  return out
}

/** `text` cut at the given positions. */
const cut = (text: string, positions: ReadonlyArray<number>): Array<string> => {
  const sorted = [...new Set(positions.map((p) => p % (text.length + 1)))].sort((a, b) => a - b)
  const pieces: Array<string> = []
  let from = 0
  for (const at of sorted) {
    pieces.push(text.slice(from, at))
    from = at
  }
  pieces.push(text.slice(from))
  return pieces
}

describe("text", () => {
  it("replaces every occurrence, and leaves short values, blanks and other text alone", () => {
    expect(redactor.secrets).toEqual([KEY])
    expect(Redaction.text(redactor, `a ${KEY} b ${KEY}${KEY} short`)).toBe(
      "a [redacted] b [redacted][redacted] short",
    )
    expect(Redaction.text(redactor, "nothing here")).toBe("nothing here")
    expect(Redaction.make(["password", "1234567"]).secrets).toEqual(["password"])
  })

  it("prefers the longest secret at a position, leftmost first", () => {
    const r = Redaction.make(["abcdefgh", "abcdefgh-longer", "fgh-long-tail"])
    expect(Redaction.text(r, "xabcdefgh-longer!")).toBe("x[redacted]!")
    expect(Redaction.text(r, "abcdefgh-long-tail")).toBe("[redacted]-long-tail")
  })
})

describe("feed: a text in deltas", () => {
  it("catches a key split across deltas, holding back only what may be its start", () => {
    const pieces = ["The key is sk-te", "st-0123", "456789abcdef, done. s", "k-not-it"]
    expect(streamed(redactor, pieces)).toEqual(["The key is ", "", "[redacted], done. ", "sk-not-it", ""])
  })

  const alphabet = fc.constantFrom("a", "b", "c", "-", " ", "sk-", KEY, KEY.slice(0, 10), KEY.slice(5))
  const text = fc.array(alphabet, { maxLength: 30 }).map((parts) => parts.join(""))
  const secrets = fc.array(fc.constantFrom(KEY, "aaaaaaaa", "abababab", "ab-ab-ab-ab", "b-sk-test-0"), { maxLength: 4 })

  it.prop(
    "released pieces put together equal the whole text redacted, wherever it is cut",
    [text, fc.array(fc.nat(), { maxLength: 12 }), secrets],
    ([whole, positions, values]) => {
      const r = Redaction.make(values)
      expect(streamed(r, cut(whole, positions)).join("")).toBe(Redaction.text(r, whole))
    },
  )

  it.prop("no released piece contains a secret's whole value", [text, fc.array(fc.nat(), { maxLength: 12 })], ([whole, positions]) => {
    for (const piece of streamed(redactor, cut(whole, positions))) expect(piece).not.toContain(KEY)
  })
})

describe("json", () => {
  it("redacts every string value and keeps unchanged parts as they were", () => {
    const untouched = { kept: ["a", 1, null] }
    const value = { a: `x${KEY}`, nested: [{ b: KEY }], untouched, n: 3 }
    const redacted = Redaction.json(redactor, value)
    expect(redacted).toEqual({ a: "x[redacted]", nested: [{ b: "[redacted]" }], untouched, n: 3 })
    expect(redacted.untouched).toBe(untouched)
    expect(Redaction.json(redactor, untouched)).toBe(untouched)
  })
})

const run = (r: Redaction.Redactor, input: ReadonlyArray<StreamChunk>): Array<StreamChunk> => {
  const state = Redaction.chunks(r)
  return [...input.flatMap((c) => state.step(c)), ...state.end()]
}

describe("chunks", () => {
  it("redacts a key split across text and tool-call deltas; block-end and failures too", () => {
    const input: Array<StreamChunk> = [
      { type: "block-start", index: 0, blockType: "text" },
      { type: "text-delta", index: 0, text: "key: sk-test-01" },
      { type: "text-delta", index: 0, text: "23456789abcdef." },
      { type: "block-end", index: 0, block: { type: "text", text: `key: ${KEY}.` } },
      { type: "block-start", index: 1, blockType: "tool-call" },
      { type: "tool-call-delta", index: 1, id: "c1", name: "run_command", argumentsDelta: '{"command":"echo sk-test' },
      { type: "tool-call-delta", index: 1, id: "c1", argumentsDelta: "-0123456789abc" },
      { type: "finish", reason: { kind: "error", failure: { code: "AUTH", message: `bad key ${KEY}` } } },
    ]
    expect(run(redactor, input)).toEqual([
      { type: "block-start", index: 0, blockType: "text" },
      { type: "text-delta", index: 0, text: "key: " },
      { type: "text-delta", index: 0, text: "[redacted]." },
      { type: "block-end", index: 0, block: { type: "text", text: "key: [redacted]." } },
      { type: "block-start", index: 1, blockType: "tool-call" },
      { type: "tool-call-delta", index: 1, id: "c1", name: "run_command", argumentsDelta: '{"command":"echo ' },
      { type: "tool-call-delta", index: 1, id: "c1", argumentsDelta: "" },
      // A prefix of the key that never completed is released as it was, before the finish.
      { type: "tool-call-delta", index: 1, id: "c1", argumentsDelta: "sk-test-0123456789abc" },
      { type: "finish", reason: { kind: "error", failure: { code: "AUTH", message: "bad key [redacted]" } } },
    ])
  })

  it("releases what is held when the stream ends without a finish", () => {
    expect(run(redactor, [{ type: "reasoning-delta", index: 2, text: "so sk-te" }])).toEqual([
      { type: "reasoning-delta", index: 2, text: "so " },
      { type: "reasoning-delta", index: 2, text: "sk-te" },
    ])
  })

  it("passes every chunk through unchanged when there is nothing to hide", () => {
    const input: Array<StreamChunk> = [{ type: "text-delta", index: 0, text: "sk-test-01" }]
    expect(run(Redaction.none, input)).toEqual(input)
  })
})

describe("the adapter seam", () => {
  it.effect("redacts the request's messages and system prompt on the way out, and the chunks on the way in", () =>
    Effect.gen(function*() {
      let seen: LlmRequest | undefined
      const inner: Service = {
        stream: (request) => {
          seen = request
          return Stream.fromIterable<StreamChunk>([
            { type: "text-delta", index: 0, text: "echo sk-test-0123" },
            { type: "text-delta", index: 0, text: "456789abcdef" },
            { type: "finish", reason: { kind: "stop" } },
          ])
        },
      }
      const user: Message = {
        id: "m1" as Message["id"],
        role: "user",
        content: [{ type: "text", text: `my key is ${KEY}` }, {
          type: "tool-result",
          toolCallId: "c1",
          content: `ANTHROPIC_API_KEY=${KEY}\n`,
        }],
        source: { kind: "user" },
      }
      const chunks = yield* Stream.runCollect(
        Redacting.adapter(redactor, inner).stream({
          provider: "p",
          model: "m",
          system: `system ${KEY}`,
          messages: [user],
        }),
      )
      expect(seen?.system).toBe("system [redacted]")
      expect(seen?.messages[0]?.content).toEqual([
        { type: "text", text: "my key is [redacted]" },
        { type: "tool-result", toolCallId: "c1", content: "ANTHROPIC_API_KEY=[redacted]\n" },
      ])
      expect(Chunk.toReadonlyArray(chunks)).toEqual([
        { type: "text-delta", index: 0, text: "echo " },
        { type: "text-delta", index: 0, text: "[redacted]" },
        { type: "finish", reason: { kind: "stop" } },
      ])
    }))
})
