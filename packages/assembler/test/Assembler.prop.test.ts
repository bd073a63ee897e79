import { describe, expect, it } from "@effect/vitest"
import { Assembler } from "@turnlog/assembler"
import type { AssistantBlock, BlockType, FinishReason, StreamChunk } from "@turnlog/protocol"
import { FastCheck as fc } from "effect"

const RUNS = { fastCheck: { numRuns: 1000 } }

// ---------------------------------------------------------------- generators

const failure = fc.record({ message: fc.string(), code: fc.constantFrom("OVERLOADED", "RATE_LIMITED", "CANCELLED") })
const reason: fc.Arbitrary<FinishReason> = fc.oneof(
  fc.constant({ kind: "stop" as const }),
  fc.constant({ kind: "tool-calls" as const }),
  fc.constant({ kind: "max-tokens" as const }),
  failure.map((f) => ({ kind: "aborted" as const, failure: f })),
  failure.map((f) => ({ kind: "error" as const, failure: f })),
)
const envelope = fc.oneof(
  fc.record({ response: fc.jsonValue() }),
  fc.record({ response: fc.jsonValue(), blocks: fc.array(fc.jsonValue(), { maxLength: 6 }) }),
)
const finishChunk: fc.Arbitrary<StreamChunk> = fc.oneof(
  reason.map((r) => ({ type: "finish" as const, reason: r })),
  fc.tuple(reason, envelope).map(([r, e]) => ({ type: "finish" as const, reason: r, replayState: e })),
)
const usageChunk: fc.Arbitrary<StreamChunk> = fc
  .record({ inputTokens: fc.nat(), outputTokens: fc.nat() })
  .map((usage) => ({ type: "usage" as const, usage }))

const blockOf = (type: BlockType): fc.Arbitrary<AssistantBlock> =>
  type === "tool-call"
    ? fc.record({ type: fc.constant("tool-call" as const), id: fc.string(), name: fc.string(), arguments: fc.string() })
    : fc.record({ type: fc.constant(type), text: fc.string() })

/** A chunk for block `index`, whose kind is `type` for the whole stream, as providers send them. */
const chunkFor = (index: number, type: BlockType): fc.Arbitrary<StreamChunk> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant({ type: "block-start" as const, index, blockType: type }) },
    {
      weight: 6,
      arbitrary: type === "tool-call"
        ? fc.record({
          id: fc.constantFrom("", `toolu_${index}`),
          name: fc.option(fc.constantFrom("", "read", "bash"), { nil: undefined }),
          argumentsDelta: fc.string({ maxLength: 6 }),
        }).map(({ argumentsDelta, id, name }) =>
          name === undefined
            ? { type: "tool-call-delta" as const, index, id, argumentsDelta }
            : { type: "tool-call-delta" as const, index, id, name, argumentsDelta }
        )
        : fc.string({ maxLength: 6 }).map((text) =>
          type === "text"
            ? { type: "text-delta" as const, index, text }
            : { type: "reasoning-delta" as const, index, text }
        ),
    },
    { weight: 1, arbitrary: blockOf(type).map((block) => ({ type: "block-end" as const, index, block })) },
  )

/** A stream over up to five indices, each of one kind, interleaved, with usage and finish chunks anywhere. */
const stream: fc.Arbitrary<ReadonlyArray<StreamChunk>> = fc
  .array(fc.constantFrom<BlockType>("text", "reasoning", "tool-call"), { minLength: 5, maxLength: 5 })
  .chain((kinds) =>
    fc.array(
      fc.oneof(
        { weight: 12, arbitrary: fc.nat({ max: 4 }).chain((index) => chunkFor(index, kinds[index]!)) },
        { weight: 1, arbitrary: usageChunk },
        { weight: 1, arbitrary: finishChunk },
      ),
      { maxLength: 40 },
    )
  )

/** Anything at all, and chunks with the right type but fields of any kind. */
const hostile: fc.Arbitrary<ReadonlyArray<StreamChunk>> = fc.array(
  fc.oneof(
    stream.map((chunks) => chunks[0] ?? null),
    fc.anything(),
    fc.record({
      type: fc.constantFrom("block-start", "text-delta", "reasoning-delta", "tool-call-delta", "block-end", "usage", "finish"),
      index: fc.oneof(fc.nat({ max: 3 }), fc.anything()),
      text: fc.anything(),
      id: fc.anything(),
      name: fc.anything(),
      argumentsDelta: fc.anything(),
      blockType: fc.anything(),
      block: fc.anything(),
      usage: fc.anything(),
      reason: fc.oneof(reason, fc.anything()),
      replayState: fc.oneof(fc.record({ response: fc.anything(), blocks: fc.anything() }), fc.anything()),
    }, { requiredKeys: ["type"] }),
  ),
  { maxLength: 30 },
) as fc.Arbitrary<ReadonlyArray<StreamChunk>>

// ---------------------------------------------------------------- a model of the stream

interface Streamed {
  readonly index: number
  readonly type: BlockType
  readonly ended: boolean
  /** The concatenated deltas (text, or tool-call arguments). */
  readonly deltas: string
}

/** Per index, in first-seen order: its kind, whether it ended, its deltas joined. */
const model = (chunks: ReadonlyArray<StreamChunk>): ReadonlyArray<Streamed> => {
  const seen = new Map<number, { type: BlockType; ended: boolean; deltas: string }>()
  for (const chunk of chunks) {
    if (chunk.type === "usage" || chunk.type === "finish") continue
    const type: BlockType = chunk.type === "block-start"
      ? chunk.blockType
      : chunk.type === "block-end"
      ? chunk.block.type
      : chunk.type === "text-delta"
      ? "text"
      : chunk.type === "reasoning-delta"
      ? "reasoning"
      : "tool-call"
    const entry = seen.get(chunk.index) ?? { type, ended: false, deltas: "" }
    seen.set(chunk.index, entry)
    if (chunk.type === "block-end") entry.ended = true
    if (chunk.type === "text-delta" || chunk.type === "reasoning-delta") entry.deltas += chunk.text
    if (chunk.type === "tool-call-delta") entry.deltas += chunk.argumentsDelta
  }
  return [...seen].map(([index, entry]) => ({ index, ...entry }))
}

const lastFinish = (chunks: ReadonlyArray<StreamChunk>): FinishReason => {
  const finishes = chunks.flatMap((chunk) => (chunk.type === "finish" ? [chunk.reason] : []))
  return finishes[finishes.length - 1] ?? { kind: "stop" }
}

/**
 * A stream that ends with a finish of `reasons`, whose envelope (when it has
 * one) mostly carries one entry per streamed block, and otherwise any number.
 */
const finished = (reasons: fc.Arbitrary<FinishReason>): fc.Arbitrary<ReadonlyArray<StreamChunk>> =>
  stream.chain((chunks) => {
    const streamed = model(chunks).length
    const entries = fc.oneof(
      { weight: 3, arbitrary: fc.array(fc.jsonValue(), { minLength: streamed, maxLength: streamed }) },
      { weight: 1, arbitrary: fc.array(fc.jsonValue(), { maxLength: 6 }) },
    )
    const replayState = fc.oneof(
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.record({ response: fc.jsonValue() }) },
      { weight: 4, arbitrary: fc.record({ response: fc.jsonValue(), blocks: entries }) },
    )
    return fc.tuple(reasons, replayState).map(([reason, envelope]): ReadonlyArray<StreamChunk> => [
      ...chunks,
      envelope === undefined ? { type: "finish", reason } : { type: "finish", reason, replayState: envelope },
    ])
  })
const notMaxTokens = reason.filter((r) => r.kind !== "max-tokens")

// ---------------------------------------------------------------- properties

describe("Assembler properties", () => {
  it.prop("replayState is absent or has exactly as many entries as blocks", [finished(reason)], ([chunks]) => {
    const result = Assembler.assemble(chunks)
    const finish = chunks[chunks.length - 1]
    const sent = finish?.type === "finish" ? finish.replayState : undefined
    if (result.replayState === undefined) {
      expect("replayState" in result).toBe(false)
      // Only an envelope with misaligned entries is discarded.
      if (sent !== undefined) expect(sent.blocks?.length).not.toBe(model(chunks).length)
    } else if (result.replayState.blocks === undefined) {
      expect(result.replayState).toBe(sent)
    } else {
      expect(result.replayState.blocks.length).toBe(result.blocks.length)
    }
  }, RUNS)

  it.prop("max-tokens leaves no tool call", [finished(fc.constant({ kind: "max-tokens" as const }))], ([chunks]) => {
    const result = Assembler.assemble(chunks)
    expect(result.blocks.filter((block) => block.type === "tool-call")).toStrictEqual([])
    expect(result.blocks.map((block) => block.type)).toStrictEqual(
      model(chunks).filter((block) => block.type !== "tool-call").map((block) => block.type),
    )
  }, RUNS)

  it.prop("other finishes keep one block per distinct index", [finished(notMaxTokens)], ([chunks]) => {
    const streamed = model(chunks)
    const result = Assembler.assemble(chunks)
    expect(result.blocks.map((block) => block.type)).toStrictEqual(streamed.map((block) => block.type))
  }, RUNS)

  it.prop("finish is deterministic", [stream], ([chunks]) => {
    const once = Assembler.assemble(chunks)
    const again = chunks.reduce(Assembler.step, Assembler.initial)
    expect(Assembler.finish(again)).toStrictEqual(once)
    expect(JSON.parse(JSON.stringify(once))).toStrictEqual(once)
  }, RUNS)

  it.prop("step never throws, nor do finish and interrupted", [hostile], ([chunks]) => {
    const state = chunks.reduce(Assembler.step, Assembler.initial)
    const result = Assembler.finish(state)
    expect(Array.isArray(result.blocks)).toBe(true)
    expect(Array.isArray(Assembler.interrupted(state))).toBe(true)
  }, RUNS)

  it.prop("a block with no block-end has the concatenation of its deltas as text", [finished(reason)], ([chunks]) => {
    const kept = lastFinish(chunks).kind === "max-tokens"
      ? model(chunks).filter((block) => block.type !== "tool-call")
      : model(chunks)
    const blocks = Assembler.assemble(chunks).blocks
    expect(blocks.length).toBe(kept.length)
    kept.forEach((streamed, i) => {
      if (streamed.ended) return
      const block = blocks[i]!
      expect(block.type === "tool-call" ? block.arguments : block.text).toBe(streamed.deltas)
    })
  }, RUNS)
})
