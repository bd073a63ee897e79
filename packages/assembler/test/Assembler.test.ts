import { describe, expect, it } from "@effect/vitest"
import { Assembler } from "@turnlog/assembler"
import { type FinishReason, ForeignFailureCode, type ReplayEnvelope, StreamChunk } from "@turnlog/protocol"
import { Schema } from "effect"
import { readFileSync } from "node:fs"

const response = { kind: "pi-ai", version: 2, api: "anthropic-messages", responseId: "msg_1" }
const failure = { message: "overloaded", code: ForeignFailureCode.make("OVERLOADED"), status: 529 }

const text = (index: number, t: string): StreamChunk => ({ type: "text-delta", index, text: t })
const reasoning = (index: number, t: string): StreamChunk => ({ type: "reasoning-delta", index, text: t })
const call = (index: number, argumentsDelta: string, id = "", name?: string): StreamChunk =>
  name === undefined
    ? { type: "tool-call-delta", index, id, argumentsDelta }
    : { type: "tool-call-delta", index, id, name, argumentsDelta }
const finish = (reason: FinishReason, replayState?: ReplayEnvelope): StreamChunk =>
  replayState === undefined ? { type: "finish", reason } : { type: "finish", reason, replayState }
const maxTokens: FinishReason = { kind: "max-tokens" }

/** Text A, tool call T, reasoning R, each ended, then a finish carrying `replayState`. */
const atr = (reason: FinishReason, replayState?: ReplayEnvelope): ReadonlyArray<StreamChunk> => [
  { type: "block-start", index: 0, blockType: "text" },
  text(0, "A"),
  { type: "block-end", index: 0, block: { type: "text", text: "A" } },
  { type: "block-start", index: 1, blockType: "tool-call" },
  call(1, '{"path":"a.ts"}', "toolu_1", "read"),
  { type: "block-end", index: 1, block: { type: "tool-call", id: "toolu_1", name: "read", arguments: '{"path":"a.ts"}' } },
  { type: "block-start", index: 2, blockType: "reasoning" },
  reasoning(2, "R"),
  { type: "block-end", index: 2, block: { type: "reasoning", text: "R" } },
  finish(reason, replayState),
]
const A = { type: "text", text: "A" }
const T = { type: "tool-call", id: "toolu_1", name: "read", arguments: '{"path":"a.ts"}' }
const R = { type: "reasoning", text: "R" }

describe("Assembler.finish: the one keep/drop decision", () => {
  it("drops the tool call on max-tokens and prunes the envelope by the same mask", () => {
    expect(Assembler.assemble(atr(maxTokens, { response, blocks: ["a", "t", "r"] }))).toStrictEqual({
      blocks: [A, R],
      replayState: { response, blocks: ["a", "r"] },
      finish: maxTokens,
    })
  })

  it("keeps an empty entry list for a response that is only a truncated tool call", () => {
    const result = Assembler.assemble([
      { type: "block-start", index: 0, blockType: "tool-call" },
      call(0, '{"command":"rm -', "toolu_9", "bash"),
      finish(maxTokens, { response, blocks: [{ type: "tool-call" }] }),
    ])
    expect(result).toStrictEqual({ blocks: [], replayState: { response, blocks: [] }, finish: maxTokens })
  })

  it("drops closed tool calls on max-tokens too", () => {
    expect(Assembler.assemble(atr(maxTokens)).blocks).toStrictEqual([A, R])
  })

  it("drops nothing on any other finish", () => {
    const others: ReadonlyArray<FinishReason> = [
      { kind: "stop" },
      { kind: "tool-calls" },
      { kind: "error", failure },
      { kind: "aborted", failure },
    ]
    for (const reason of others) {
      expect(Assembler.assemble(atr(reason)).blocks).toStrictEqual([A, T, R])
    }
  })

  it("keeps the blocks and discards the envelope when two blocks come with one entry", () => {
    const result = Assembler.assemble([text(0, "hi"), reasoning(1, "hm"), finish({ kind: "stop" }, { response, blocks: ["x"] })])
    expect(result).toStrictEqual({
      blocks: [{ type: "text", text: "hi" }, { type: "reasoning", text: "hm" }],
      finish: { kind: "stop" },
    })
    expect("replayState" in result).toBe(false)
  })

  it("passes the envelope through as the very same object in the three pass-through cases", () => {
    const noEntries: ReplayEnvelope = { response }
    expect(Assembler.assemble(atr(maxTokens, noEntries)).replayState).toBe(noEntries)
    const noEntriesKept: ReplayEnvelope = { response }
    expect(Assembler.assemble(atr({ kind: "stop" }, noEntriesKept)).replayState).toBe(noEntriesKept)
    const aligned: ReplayEnvelope = { response, blocks: ["a", "t", "r"] }
    expect(Assembler.assemble(atr({ kind: "tool-calls" }, aligned)).replayState).toBe(aligned)
  })

  it("treats a response without a finish chunk as a stop", () => {
    expect(Assembler.assemble([text(0, "hi")])).toStrictEqual({ blocks: [{ type: "text", text: "hi" }], finish: { kind: "stop" } })
    expect(Assembler.assemble([])).toStrictEqual({ blocks: [], finish: { kind: "stop" } })
  })

  it("lets the last finish chunk win, envelope included", () => {
    const result = Assembler.assemble([
      text(0, "A"),
      call(1, "{}", "toolu_1", "read"),
      finish({ kind: "tool-calls" }, { response: "first", blocks: ["a", "t"] }),
      finish(maxTokens),
    ])
    expect(result).toStrictEqual({ blocks: [{ type: "text", text: "A" }], finish: maxTokens })
  })

  it("reports the last usage chunk, and no usage field when none came", () => {
    const result = Assembler.assemble([
      { type: "usage", usage: { inputTokens: 10, outputTokens: 1 } },
      text(0, "x"),
      { type: "usage", usage: { inputTokens: 10, outputTokens: 7, reasoningTokens: 3 } },
    ])
    expect(result.usage).toStrictEqual({ inputTokens: 10, outputTokens: 7, reasoningTokens: 3 })
    expect("usage" in Assembler.assemble([text(0, "x")])).toBe(false)
  })
})

describe("Assembler.step: chunk rules", () => {
  it("orders blocks by the first chunk seen for their index", () => {
    const result = Assembler.assemble([reasoning(5, "r"), text(2, "t"), reasoning(5, "s"), call(0, "{}"), text(2, "u")])
    expect(result.blocks).toStrictEqual([
      { type: "reasoning", text: "rs" },
      { type: "text", text: "tu" },
      { type: "tool-call", id: "call-0", name: "", arguments: "{}" },
    ])
  })

  it("keeps order and text across many interleaved blocks", () => {
    // 40 indices, first seen in a scrambled order, each streamed in three
    // deltas spread over the whole response.
    const order = Array.from({ length: 40 }, (_, i) => (i * 17) % 40)
    const chunks = [0, 1, 2].flatMap((part) => order.map((index) => text(index, `${index}.${part} `)))
    expect(Assembler.assemble(chunks).blocks).toStrictEqual(
      order.map((index) => ({ type: "text", text: `${index}.0 ${index}.1 ${index}.2 ` })),
    )
  })

  it("accepts deltas without a block-start and concatenates them in order", () => {
    expect(Assembler.assemble([text(0, "Hel"), text(0, "lo"), text(0, ", world")]).blocks).toStrictEqual([
      { type: "text", text: "Hello, world" },
    ])
  })

  it("takes the first block-end as authoritative and ignores the index's later chunks", () => {
    const result = Assembler.assemble([
      { type: "block-start", index: 0, blockType: "text" },
      text(0, "draft"),
      { type: "block-end", index: 0, block: { type: "text", text: "final" } },
      text(0, " more"),
      { type: "block-end", index: 0, block: { type: "text", text: "second end" } },
      { type: "block-start", index: 0, blockType: "reasoning" },
    ])
    expect(result.blocks).toStrictEqual([{ type: "text", text: "final" }])
  })

  it("keeps an index's position when it ends out of order (pi-ai ends text after a tool call starts)", () => {
    const result = Assembler.assemble([
      { type: "block-start", index: 0, blockType: "text" },
      text(0, "Reading"),
      { type: "block-start", index: 1, blockType: "tool-call" },
      call(1, '{"path":', "toolu_2", "read"),
      text(0, " the file."),
      call(1, '"b.ts"}', "toolu_2"),
      { type: "block-end", index: 1, block: { type: "tool-call", id: "toolu_2", name: "read", arguments: '{"path":"b.ts"}' } },
      { type: "block-end", index: 0, block: { type: "text", text: "Reading the file." } },
      finish({ kind: "tool-calls" }),
    ])
    expect(result.blocks).toStrictEqual([
      { type: "text", text: "Reading the file." },
      { type: "tool-call", id: "toolu_2", name: "read", arguments: '{"path":"b.ts"}' },
    ])
  })

  it('names a tool call that never carried an id or name call-<index> and ""', () => {
    expect(Assembler.assemble([call(3, '{"a":'), call(3, "1}")]).blocks).toStrictEqual([
      { type: "tool-call", id: "call-3", name: "", arguments: '{"a":1}' },
    ])
  })

  it("keeps the first id and name a tool call carried, even on a later delta", () => {
    expect(Assembler.assemble([call(0, "{", ""), call(0, "}", "toolu_7", "grep"), call(0, "", "toolu_8", "find")]).blocks)
      .toStrictEqual([{ type: "tool-call", id: "toolu_7", name: "grep", arguments: "{}" }])
  })

  it("sets a block's kind by its first chunk and ignores deltas of another kind", () => {
    const result = Assembler.assemble([
      { type: "block-start", index: 0, blockType: "reasoning" },
      text(0, "not this"),
      reasoning(0, "think"),
      { type: "block-start", index: 0, blockType: "text" },
      call(0, "{}"),
    ])
    expect(result.blocks).toStrictEqual([{ type: "reasoning", text: "think" }])
  })

  it("takes indices of any size", () => {
    const chunks = [text(2 ** 40, "a"), call(Number.MAX_SAFE_INTEGER, "{}"), text(2 ** 27 - 1, "b"), text(2 ** 40, "c")]
    const state = chunks.reduce(Assembler.step, Assembler.initial)
    const blocks = [
      { type: "text", text: "ac" },
      { type: "tool-call", id: "call-9007199254740991", name: "", arguments: "{}" },
      { type: "text", text: "b" },
    ]
    expect(Assembler.finish(state).blocks).toStrictEqual(blocks)
    const later = Assembler.step(state, text(2 ** 27 - 1, "!"))
    expect(Assembler.finish(later).blocks).toStrictEqual([blocks[0], blocks[1], { type: "text", text: "b!" }])
    expect(Assembler.finish(state).blocks).toStrictEqual(blocks)
  })

  it("keeps a block that started but streamed nothing", () => {
    expect(Assembler.assemble([{ type: "block-start", index: 0, blockType: "text" }]).blocks).toStrictEqual([
      { type: "text", text: "" },
    ])
  })

  it("places an ended block by its first chunk when its deltas came in several runs, one of them finished midway", () => {
    const early = [text(0, "a"), text(0, "b"), reasoning(1, "r"), text(0, "c")].reduce(Assembler.step, Assembler.initial)
    expect(Assembler.finish(early).blocks).toStrictEqual([{ type: "text", text: "abc" }, { type: "reasoning", text: "r" }])
    const later = ([
      text(0, "d"),
      { type: "block-end", index: 0, block: { type: "text", text: "ABCD" } },
      text(0, "ignored"),
      { type: "block-end", index: 0, block: { type: "text", text: "not the first end" } },
      reasoning(1, "s"),
    ] satisfies ReadonlyArray<StreamChunk>).reduce(Assembler.step, early)
    expect(Assembler.finish(later).blocks).toStrictEqual([{ type: "text", text: "ABCD" }, { type: "reasoning", text: "rs" }])
    expect(Assembler.finish(early).blocks).toStrictEqual([{ type: "text", text: "abc" }, { type: "reasoning", text: "r" }])
  })

  it("returns fresh blocks with only the block's fields", () => {
    const block = { type: "text", text: "hi", extra: "from an adapter" } as const
    const result = Assembler.assemble([{ type: "block-end", index: 0, block }])
    expect(result.blocks).toStrictEqual([{ type: "text", text: "hi" }])
    expect(result.blocks[0]).not.toBe(block)
  })
})

describe("Assembler: a total reducer", () => {
  const garbage: ReadonlyArray<unknown> = [
    null,
    undefined,
    42,
    "text-delta",
    [],
    {},
    { type: "nonsense", index: 0 },
    { type: "text-delta", index: -1, text: "negative" },
    { type: "text-delta", index: 1.5, text: "fractional" },
    { type: "text-delta", index: "0", text: "string index" },
    // Objects that cannot become numbers: a careless index check throws on them.
    { type: "text-delta", index: { toString: false }, text: "object index" },
    { type: "block-end", index: Object.create(null), block: { type: "text", text: "bare object index" } },
    { type: "text-delta", index: 0, text: 7 },
    { type: "reasoning-delta", index: 0 },
    { type: "tool-call-delta", index: 0, id: 3, argumentsDelta: null },
    { type: "block-start", index: 0, blockType: "image" },
    { type: "block-end", index: 0, block: null },
    { type: "block-end", index: 0, block: { type: "tool-call", id: "x" } },
    { type: "usage", usage: { inputTokens: "many" } },
    { type: "finish", reason: { kind: "done" } },
    { type: "finish", reason: { kind: "error" } },
    { type: "finish" },
  ]
  const before: ReadonlyArray<StreamChunk> = [
    { type: "usage", usage: { inputTokens: 3, outputTokens: 2 } },
    { type: "finish", reason: { kind: "tool-calls" } },
  ]

  it("ignores every chunk it cannot read", () => {
    const chunks = [text(0, "kept"), ...(garbage as ReadonlyArray<StreamChunk>), text(0, " too")]
    expect(Assembler.assemble(chunks)).toStrictEqual({ blocks: [{ type: "text", text: "kept too" }], finish: { kind: "stop" } })
    for (const chunk of garbage) {
      const state = Assembler.step(Assembler.initial, chunk as StreamChunk)
      expect(Assembler.finish(state)).toStrictEqual({ blocks: [], finish: { kind: "stop" } })
      expect(Assembler.interrupted(state)).toStrictEqual([])
    }
  })

  it("keeps the last readable usage and finish when later ones cannot be read", () => {
    const chunks = [...before, ...(garbage as ReadonlyArray<StreamChunk>)]
    expect(Assembler.assemble(chunks)).toStrictEqual({
      blocks: [],
      finish: { kind: "tool-calls" },
      usage: { inputTokens: 3, outputTokens: 2 },
    })
  })

  it("does not let an unreadable block-end close or place a block", () => {
    const chunks = [
      { type: "block-end", index: 1, block: { type: "text" } },
      text(0, "first"),
      text(1, "second"),
      { type: "block-end", index: 1, block: { type: "tool-call", id: 1 } },
      text(1, " continued"),
    ] as ReadonlyArray<StreamChunk>
    expect(Assembler.assemble(chunks).blocks).toStrictEqual([
      { type: "text", text: "first" },
      { type: "text", text: "second continued" },
    ])
  })

  it("discards an envelope whose entries are not a list, and one that is not an object", () => {
    for (const replayState of [{ response, blocks: "abc" }, { response, blocks: null }, null, "envelope"]) {
      const result = Assembler.assemble([text(0, "A"), { type: "finish", reason: maxTokens, replayState } as unknown as StreamChunk])
      expect(result).toStrictEqual({ blocks: [{ type: "text", text: "A" }], finish: maxTokens })
    }
  })
})

describe("Assembler states are values", () => {
  const chunks = atr(maxTokens, { response, blocks: ["a", "t", "r"] })
  const states = chunks.reduce<Array<Assembler.State>>(
    (all, chunk) => [...all, Assembler.step(all[all.length - 1]!, chunk)],
    [Assembler.initial],
  )

  it("finishes any earlier state as if the stream had stopped there, whatever was stepped since", () => {
    const head = states[states.length - 1]!
    expect(Assembler.finish(head).blocks).toStrictEqual([A, R])
    expect(Assembler.finish(states[5]!)).toStrictEqual(Assembler.assemble(chunks.slice(0, 5)))
    expect(Assembler.finish(states[2]!)).toStrictEqual({ blocks: [A], finish: { kind: "stop" } })
    expect(Assembler.interrupted(states[4]!)).toStrictEqual([A])
  })

  it("steps the same state twice into two independent states", () => {
    const base = Assembler.step(Assembler.initial, text(0, "base"))
    const left = Assembler.step(base, text(0, " left"))
    const right = Assembler.step(base, reasoning(1, "right"))
    expect(Assembler.finish(left).blocks).toStrictEqual([{ type: "text", text: "base left" }])
    expect(Assembler.finish(right).blocks).toStrictEqual([{ type: "text", text: "base" }, { type: "reasoning", text: "right" }])
    expect(Assembler.finish(base).blocks).toStrictEqual([{ type: "text", text: "base" }])
  })

  it("returns the same result object when a state is finished twice", () => {
    const head = states[states.length - 1]!
    const first = Assembler.finish(head)
    expect(Assembler.finish(head)).toBe(first)
    expect(Assembler.finish(Assembler.step(head, text(9, "later")))).not.toBe(first)
    expect(Assembler.finish(head)).toBe(first)
  })
})

describe("Assembler.interrupted", () => {
  it("keeps open and ended text and reasoning with non-blank text, in order, and never a tool call", () => {
    const chunks: ReadonlyArray<StreamChunk> = [
      reasoning(0, "Planning"),
      { type: "block-end", index: 0, block: { type: "reasoning", text: "Planning." } },
      text(1, "  \n\t"),
      { type: "block-end", index: 2, block: { type: "tool-call", id: "toolu_1", name: "read", arguments: "{}" } },
      text(3, "Half a sent"),
      call(4, '{"pa'),
      reasoning(5, ""),
      text(3, "ence"),
    ]
    const state = chunks.reduce(Assembler.step, Assembler.initial)
    expect(Assembler.interrupted(state)).toStrictEqual([
      { type: "reasoning", text: "Planning." },
      { type: "text", text: "Half a sentence" },
    ])
  })

  it("is empty before any chunk", () => {
    expect(Assembler.interrupted(Assembler.initial)).toStrictEqual([])
  })
})

describe("the recorded truncated stream", () => {
  const chunks = Schema.decodeUnknownSync(Schema.Array(StreamChunk))(
    JSON.parse(readFileSync(new URL("./fixtures/truncated-tool-call.json", import.meta.url), "utf8")),
  )

  it("keeps reasoning and text, drops the unfinished tool call, and keeps two of three entries", () => {
    expect(Assembler.assemble(chunks)).toStrictEqual({
      blocks: [
        { type: "reasoning", text: "The user wants the failing test fixed. I should read the test file first." },
        { type: "text", text: "Let me look at the test first." },
      ],
      replayState: {
        response: {
          kind: "pi-ai",
          version: 2,
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          responseId: "msg_01XFDUDYJgAACzvnptvVoYEL",
          stopReason: "length",
        },
        blocks: [{ type: "reasoning", thinkingSignature: "EqQBCkYIBxgCKkD0wTf2" }, { type: "text" }],
      },
      finish: { kind: "max-tokens" },
      usage: { inputTokens: 1843, outputTokens: 64, cacheReadTokens: 1024 },
    })
  })
})
