// A version-4 log writes a batch's entries packed: lengths as base-64 digits,
// a whole block as its deltas' entry alone. Read back, the entries exactly.
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { ChunkBatch, SessionLog, type StreamChunk } from "@turnlog/protocol"
import { expand, lengthsOf, pack, sizesOf } from "../src/internal/BatchLines.js"

const entriesOf = (chunks: ReadonlyArray<StreamChunk>) => {
  const batch = SessionLog.batchOf(chunks)
  return batch.type === "assistant/chunks" ? batch.data.entries : []
}

describe("a batch's entries packed", () => {
  it("writes lengths under 32 as one digit each, longer ones in five-bit groups", () => {
    expect(sizesOf([4, 6, 9, 0, 31])).toBe("EGJAf")
    expect(sizesOf([32, 100, 1023, 1024])).toBe("gBkD_fggB")
    expect(lengthsOf("gBkD_fggB")).toStrictEqual([32, 100, 1023, 1024])
    expect(sizesOf([-1])).toBeUndefined()
    expect(sizesOf([1.5])).toBeUndefined()
  })

  it("reads back any lengths it wrote", () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 0x3fffffff })), (lengths) => {
      expect(lengthsOf(sizesOf(lengths)!)).toStrictEqual(lengths)
    }))
  })

  it("writes a whole text block as its deltas' entry, its start and end implied", () => {
    const entries = entriesOf([
      { type: "block-start", index: 0, blockType: "text" },
      { type: "text-delta", index: 0, text: "Hello " },
      { type: "text-delta", index: 0, text: "there." },
      { type: "block-end", index: 0, block: { type: "text", text: "Hello there." } },
      { type: "block-start", index: 1, blockType: "tool-call" },
      { type: "tool-call-delta", index: 1, id: "c1", name: "read_file", argumentsDelta: "{}" },
      { type: "block-end", index: 1, block: { type: "tool-call", id: "c1", name: "read_file", arguments: "{}" } },
      { type: "usage", usage: { inputTokens: 10, outputTokens: 2 } },
    ])
    const packed = pack(entries)
    expect(packed).toStrictEqual([
      { type: "text-deltas", index: 0, text: "Hello there.", sizes: "GG", whole: true },
      { type: "tool-call-delta", index: 1, id: "c1", name: "read_file", argumentsDelta: "{}", whole: true },
      { type: "usage", usage: { inputTokens: 10, outputTokens: 2 } },
    ])
    expect(JSON.stringify(expand(packed!))).toBe(JSON.stringify(entries))
  })

  it("reads back exactly, key order included, any batch of any chunks", () => {
    const index = fc.integer({ min: 0, max: 2 })
    const chunk: fc.Arbitrary<StreamChunk> = fc.oneof(
      fc.record({ type: fc.constant("block-start" as const), index, blockType: fc.constantFrom("text" as const, "reasoning" as const, "tool-call" as const) }),
      fc.record({ type: fc.constant("text-delta" as const), index, text: fc.string({ maxLength: 40 }) }),
      fc.record({ type: fc.constant("reasoning-delta" as const), index, text: fc.string({ maxLength: 40 }) }),
      fc.record({
        type: fc.constant("tool-call-delta" as const),
        index,
        id: fc.constantFrom("a", "b"),
        name: fc.constant("n"),
        argumentsDelta: fc.string({ maxLength: 40 }),
      }),
      fc.record({ type: fc.constant("block-end" as const), index, block: fc.constant({ type: "text" as const, text: "" }) }),
      fc.constant({ type: "usage" as const, usage: { inputTokens: 1, outputTokens: 1 } }),
    )
    // Runs of one block, so that whole blocks (start, deltas, end) are common.
    const block = fc.tuple(index, fc.constantFrom("text", "reasoning"), fc.array(fc.string({ maxLength: 200 }), { maxLength: 5 })).map(([i, kind, texts]) => {
      const type = kind === "text" ? "text-delta" as const : "reasoning-delta" as const
      return [
        { type: "block-start" as const, index: i, blockType: kind as "text" | "reasoning" },
        ...texts.map((text): StreamChunk => ({ type, index: i, text })),
        { type: "block-end" as const, index: i, block: { type: kind as "text" | "reasoning", text: texts.join("") } },
      ] as Array<StreamChunk>
    })
    fc.assert(fc.property(fc.array(fc.oneof(chunk.map((c) => [c]), block)), (parts) => {
      const tracker = new ChunkBatch.Tracker()
      const entries = ChunkBatch.encode(parts.flat(), tracker)
      const packed = pack(entries)
      expect(packed).toBeDefined()
      expect(JSON.stringify(expand(JSON.parse(JSON.stringify(packed))))).toBe(JSON.stringify(entries))
    }))
  })

  it("leaves alone entries that already hold its keys", () => {
    expect(pack([{ type: "text-delta", index: 0, text: "x", whole: true }])).toBeUndefined()
  })

  it("names what it cannot read", () => {
    expect(expand([{ type: "text-deltas", index: 0, text: "ab", sizes: "B!" }])).toBe(`0: "sizes" holds "!", which is not a base-64 digit`)
    expect(expand([{ type: "usage", usage: {} }, { type: "text-deltas", index: 0, text: "ab", sizes: "g" }])).toBe(
      `1: "sizes" ends in the middle of a length`,
    )
    expect(expand([{ type: "usage", usage: {}, whole: true }])).toBe(`0: a usage entry cannot hold "sizes" or "whole"`)
    expect(expand([{ type: "text-delta", index: 0, text: "ab", whole: 1 }])).toBe(`0: "whole" must be true`)
    expect(expand([{ type: "text-deltas", index: 0, text: "ab", sizes: "B", lengths: [2] }])).toBe(`0: "sizes" must be a string, in place of "lengths"`)
  })
})
