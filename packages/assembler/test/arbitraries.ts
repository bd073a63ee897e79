/**
 * Chunk streams for the assembler's property tests: well-formed interleaved
 * streams as providers send them, and hostile ones (anything a log may hold).
 */
import { type AssistantBlock, type BlockType, DurableFailureCode, type FinishReason, type StreamChunk } from "@turnlog/protocol"
import { FastCheck as fc, Schema } from "effect"

export const RUNS = { fastCheck: { numRuns: 1000 } }

// ---------------------------------------------------------------- generators

const failure = fc.record({ message: fc.string(), code: fc.constantFrom("OVERLOADED", "RATE_LIMITED", "CANCELLED").map(Schema.decodeSync(DurableFailureCode)) })
export const reason: fc.Arbitrary<FinishReason> = fc.oneof(
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
export const stream: fc.Arbitrary<ReadonlyArray<StreamChunk>> = fc
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
export const hostile: fc.Arbitrary<ReadonlyArray<StreamChunk>> = fc.array(
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
