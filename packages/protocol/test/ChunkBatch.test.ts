import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import { type AssistantBlock, type BlockType, ChunkBatch, SessionLog, type StreamChunk } from "@turnlog/protocol"

const RUNS = { fastCheck: { numRuns: 1000 } }

const index = fc.nat({ max: 3 })
const blockType = fc.constantFrom<BlockType>("text", "reasoning", "tool-call")
const piece = fc.oneof(fc.constant(""), fc.string({ maxLength: 5 }), fc.constantFrom(" the", " answer", "\n", "é"))
const block: fc.Arbitrary<AssistantBlock> = fc.oneof(
  fc.record({ type: fc.constantFrom("text" as const, "reasoning" as const), text: piece }),
  fc.record({ type: fc.constant("tool-call" as const), id: fc.constantFrom("", "t1"), name: piece, arguments: piece }),
)

/** Any chunk, in any order: deltas of any kind at any index, empty ones, block-ends that match nothing. */
const chunk: fc.Arbitrary<StreamChunk> = fc.oneof(
  fc.record({ type: fc.constant("block-start" as const), index, blockType }),
  { weight: 4, arbitrary: fc.record({ type: fc.constant("text-delta" as const), index, text: piece }) },
  fc.record({ type: fc.constant("reasoning-delta" as const), index, text: piece }),
  fc.record({ index, id: fc.constantFrom("", "t1", "t2"), name: fc.option(fc.constantFrom("", "read"), { nil: undefined }), argumentsDelta: piece })
    .map(({ argumentsDelta, id, index, name }) =>
      name === undefined
        ? { type: "tool-call-delta" as const, index, id, argumentsDelta }
        : { type: "tool-call-delta" as const, index, id, name, argumentsDelta }
    ),
  fc.record({ type: fc.constant("block-end" as const), index, block }),
  fc.constant({ type: "usage" as const, usage: { inputTokens: 3, outputTokens: 4 } }),
  fc.constant({ type: "finish" as const, reason: { kind: "stop" as const } }),
)

/**
 * A block-end made honest: its block is what a provider would send after the
 * chunks before it, so back-references are exercised, not only copies.
 */
const honest = (chunks: ReadonlyArray<StreamChunk>): Array<StreamChunk> => {
  const out: Array<StreamChunk> = []
  const kinds = new Map<number, { type: BlockType; text: string; id?: string; name?: string }>()
  for (const c of chunks) {
    if (c.type === "block-start") kinds.set(c.index, { type: c.blockType, text: "" })
    const open = "index" in c ? kinds.get(c.index) : undefined
    if (c.type === "text-delta" && open?.type === "text") open.text = open.text + c.text
    if (c.type === "reasoning-delta" && open?.type === "reasoning") open.text = open.text + c.text
    if (c.type === "tool-call-delta" && open?.type === "tool-call") {
      open.text = open.text + c.argumentsDelta
      open.id = c.id
      if (c.name !== undefined) open.name = c.name
    }
    if (c.type === "block-end" && open !== undefined) {
      kinds.delete(c.index)
      if (open.type !== "tool-call") {
        out.push({ type: "block-end", index: c.index, block: { type: open.type, text: open.text } })
        continue
      }
      if (open.id !== undefined && open.name !== undefined) {
        out.push({ type: "block-end", index: c.index, block: { type: "tool-call", id: open.id, name: open.name, arguments: open.text } })
        continue
      }
    }
    out.push(c)
  }
  return out
}

const chunks = fc.oneof(
  fc.array(chunk, { maxLength: 40 }),
  fc.array(chunk, { maxLength: 40 }).map(honest),
)

const decode = (entries: ReadonlyArray<ChunkBatch.Entry>) => Either.getOrThrow(ChunkBatch.decode(entries))
const decodeEntries = Schema.decodeUnknownEither(ChunkBatch.Entries)

describe("ChunkBatch", () => {
  it.prop("gives back exactly the chunks it encoded, whatever they are", [chunks], ([cs]) => {
    const entries = ChunkBatch.encode(cs)
    expect(decode(entries)).toEqual(cs)
    // What the log holds decodes to the same chunks after a JSON round trip, and the schema accepts it.
    const stored = JSON.parse(JSON.stringify(entries))
    if (cs.length > 0) expect(Either.isRight(decodeEntries(stored))).toBe(true)
    expect(decode(stored)).toEqual(cs)
  }, RUNS)

  it.prop("finds damage exactly where decoding fails: a dangling reference, a run its lengths do not cut", [fc.array(
    fc.oneof(
      chunk,
      fc.record({ type: fc.constant("block-end-assembled" as const), index }),
      fc.record({ type: fc.constant("text-deltas" as const), index, text: piece, lengths: fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 3 }) }),
      fc.record({ type: fc.constant("reasoning-deltas" as const), index, text: piece, lengths: fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 3 }) }),
      fc.record({
        type: fc.constant("tool-call-deltas" as const),
        index,
        id: fc.constant("t1"),
        arguments: piece,
        lengths: fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({
        type: fc.constant("tool-call-deltas" as const),
        index,
        id: fc.constant("t1"),
        name: fc.constant("read"),
        arguments: piece,
        lengths: fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 3 }),
      }),
    ),
    { maxLength: 20 },
  )], ([entries]) => {
    const decoded = ChunkBatch.decode(entries)
    expect(Either.isLeft(decoded) ? decoded.left : undefined).toBe(ChunkBatch.firstDamage(entries))
  }, RUNS)

  it("stores a text answer as one run and its matching block-end as a reference", () => {
    const cs: Array<StreamChunk> = [
      { type: "block-start", index: 0, blockType: "text" },
      { type: "text-delta", index: 0, text: "Hello" },
      { type: "text-delta", index: 0, text: "" },
      { type: "text-delta", index: 0, text: " world" },
      { type: "block-end", index: 0, block: { type: "text", text: "Hello world" } },
      { type: "block-start", index: 1, blockType: "tool-call" },
      { type: "tool-call-delta", index: 1, id: "t1", name: "read", argumentsDelta: '{"pa' },
      { type: "tool-call-delta", index: 1, id: "t1", argumentsDelta: 'th":1}' },
      { type: "tool-call-delta", index: 1, id: "t1", argumentsDelta: "" },
      // Not what its deltas assemble to: kept whole.
      { type: "block-end", index: 1, block: { type: "tool-call", id: "t1", name: "read", arguments: "{}" } },
      { type: "finish", reason: { kind: "tool-calls" } },
    ]
    expect(JSON.stringify(ChunkBatch.encode(cs))).toBe(
      `[{"type":"block-start","index":0,"blockType":"text"},` +
        `{"type":"text-deltas","index":0,"text":"Hello world","lengths":[5,0,6]},` +
        `{"type":"block-end-assembled","index":0},` +
        `{"type":"block-start","index":1,"blockType":"tool-call"},` +
        `{"type":"tool-call-delta","index":1,"id":"t1","name":"read","argumentsDelta":"{\\"pa"},` +
        `{"type":"tool-call-deltas","index":1,"id":"t1","arguments":"th\\":1}","lengths":[6,0]},` +
        `{"type":"block-end","index":1,"block":{"type":"tool-call","id":"t1","name":"read","arguments":"{}"}},` +
        `{"type":"finish","reason":{"kind":"tool-calls"}}]`,
    )
    expect(SessionLog.chunksOf({ seq: 4, time: "t", ...SessionLog.batchOf(cs) })).toEqual(cs)
  })

  it("keeps a block-end whole when its block differs in any way, an extra key included", () => {
    const start: StreamChunk = { type: "block-start", index: 0, blockType: "text" }
    const delta: StreamChunk = { type: "text-delta", index: 0, text: "a" }
    const odd = { type: "block-end" as const, index: 0, block: { type: "text" as const, text: "a", extra: 1 } as AssistantBlock }
    expect(ChunkBatch.encode([start, delta, odd])[2]).toBe(odd)
    const other: StreamChunk = { type: "block-end", index: 0, block: { type: "reasoning", text: "a" } }
    expect(ChunkBatch.encode([start, delta, other])[2]).toBe(other)
    // A second block-end of the same index refers to nothing: the first closed it.
    const end: StreamChunk = { type: "block-end", index: 0, block: { type: "text", text: "a" } }
    expect(ChunkBatch.encode([start, delta, end, end]).map((e) => e.type)).toEqual([
      "block-start",
      "text-delta",
      "block-end-assembled",
      "block-end",
    ])
  })

  it("refuses a back-reference to a block the batch did not assemble, a miscut run and an empty batch, naming the entry", () => {
    const event = (entries: unknown) => ({ seq: 7, time: "t", type: "assistant/chunks", data: { entries } })
    const dangling = SessionLog.decodeEvent(event([{ type: "text-delta", index: 0, text: "a" }, { type: "block-end-assembled", index: 0 }]))
    expect(Either.isLeft(dangling)).toBe(true)
    expect(String(Either.isLeft(dangling) ? dangling.left : "")).toContain(
      "entry 1 is a block-end-assembled of index 0, but no block of that index is assembled there",
    )
    expect(Either.isLeft(SessionLog.decodeEvent(event([])))).toBe(true)
    expect(Either.isLeft(SessionLog.decodeEvent(event([{ type: "text-deltas", index: 0, text: "", lengths: [] }])))).toBe(true)
    const miscut = SessionLog.decodeEvent(
      event([{ type: "block-start", index: 0, blockType: "text" }, { type: "text-deltas", index: 0, text: "abc", lengths: [1, 1] }]),
    )
    expect(String(Either.isLeft(miscut) ? miscut.left : "")).toContain("entry 1 is a run of 3 characters whose delta lengths add up to 2")
    expect(Either.isRight(SessionLog.decodeEvent(event([{ type: "text-deltas", index: 0, text: "ab", lengths: [1, 1] }])))).toBe(true)
  })

  it("gives the chunks of any event: one, a batch's, or none", () => {
    const one: StreamChunk = { type: "usage", usage: { inputTokens: 1, outputTokens: 2 } }
    expect(SessionLog.chunksOf({ seq: 1, time: "t", type: "assistant/chunk", data: { chunk: one } })).toEqual([one])
    expect(SessionLog.chunksOf({ seq: 2, time: "t", type: "turn/start", data: {} })).toEqual([])
  })
})

describe("ChunkBatch across a request's batches (version 3)", () => {
  const request = { seq: 1, time: "t", type: "request/start" as const, data: { provider: "p", model: "m" } }
  /** `cs` cut before each of `cuts` (sorted, deduplicated), each piece one batch event from seq 2, encoded with the request's tracker. */
  const batches = (cs: ReadonlyArray<StreamChunk>, cuts: ReadonlyArray<number>) => {
    const at = [...new Set(cuts.map((c) => c % (cs.length + 1)))].sort((a, b) => a - b).filter((c) => c > 0 && c < cs.length)
    const pieces = [0, ...at].map((from, i) => cs.slice(from, [...at, cs.length][i]))
    const tracker = new ChunkBatch.Tracker()
    return pieces.map((piece, i): SessionLog.SessionEvent => ({ seq: 2 + i, time: "t", ...SessionLog.batchOf(piece, tracker) }))
  }

  it.prop("gives back exactly the chunks however they are cut into batches", [chunks, fc.array(fc.nat({ max: 50 }), { maxLength: 4 })], ([cs, cuts]) => {
    fc.pre(cs.length > 0)
    const events = batches(cs, cuts)
    const stored = JSON.parse(JSON.stringify([request, ...events])) as Array<SessionLog.SessionEvent>
    for (const event of stored.slice(1)) expect(Either.isRight(SessionLog.decodeEvent(event))).toBe(true)
    expect(SessionLog.chunksIn(stored)).toEqual(cs)
  }, RUNS)

  const long: Array<StreamChunk> = [
    { type: "block-start", index: 0, blockType: "text" },
    { type: "text-delta", index: 0, text: "Hello" },
    { type: "text-delta", index: 0, text: " wide" },
    { type: "text-delta", index: 0, text: " world" },
    { type: "block-end", index: 0, block: { type: "text", text: "Hello wide world" } },
    { type: "finish", reason: { kind: "stop" } },
  ]

  it("ends a block that started in an earlier batch by reference, not with its text again", () => {
    const events = batches(long, [2, 4])
    expect(events.map((e) => JSON.stringify(e.type === "assistant/chunks" ? e.data.entries : []))).toEqual([
      `[{"type":"block-start","index":0,"blockType":"text"},{"type":"text-delta","index":0,"text":"Hello"}]`,
      `[{"type":"text-deltas","index":0,"text":" wide world","lengths":[5,6]}]`,
      `[{"type":"block-end-streamed","index":0},{"type":"finish","reason":{"kind":"stop"}}]`,
    ])
    // Without a carried tracker (version 2) a batch stands alone: the block is written whole.
    expect(ChunkBatch.encode(long.slice(4))[0]).toBe(long[4])
  })

  it("a batch whose earlier batches are missing or damaged fails naming its seq and entry, never an empty text", () => {
    const [first, second, third] = batches(long, [2, 4])
    expect(() => SessionLog.chunksIn([request, second!, third!])).toThrow(
      "event 4: entry 0 is a block-end-streamed of index 0, but no earlier batch of its request started a block of that index",
    )
    // A new request starts afresh: the earlier request's open block is not this one's.
    expect(() => SessionLog.chunksIn([request, first!, second!, { ...request, seq: 5 }, { ...third!, seq: 6 }])).toThrow("event 6: entry 0")
    // Within one batch the reference is the batch's own, never across.
    const here = [{ type: "block-start", index: 0, blockType: "text" }, { type: "block-end-streamed", index: 0 }]
    expect(Either.isLeft(SessionLog.decodeEvent({ seq: 2, time: "t", type: "assistant/chunks", data: { entries: here } }))).toBe(true)
    expect(ChunkBatch.firstDamage(here as Array<ChunkBatch.Entry>)).toBe("entry 1 is a block-end-streamed of index 0, but that block started in the same batch")
  })
})
