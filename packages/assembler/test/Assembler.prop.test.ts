import { describe, expect, it } from "@effect/vitest"
import { Assembler } from "@turnlog/assembler"
import type { BlockType, FinishReason, StreamChunk } from "@turnlog/protocol"
import { FastCheck as fc } from "effect"
import { hostile, reason, RUNS, stream } from "./arbitraries.js"

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
