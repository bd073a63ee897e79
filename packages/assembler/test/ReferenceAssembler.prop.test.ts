/**
 * The tuned reducer (`src/internal/tuned/`) against the reference assembler
 * (`ReferenceAssembler.ts`): equal results on every stream, well-formed or not, and
 * on every state, however it was reached. A change of behaviour goes into the
 * reference first; these properties then show where the tuned code differs.
 */
import { describe, expect, it } from "@effect/vitest"
import { Assembler } from "@turnlog/assembler"
import type { FinishReason, StreamChunk } from "@turnlog/protocol"
import { FastCheck as fc } from "effect"
import { hostile, reason, RUNS, stream } from "./arbitraries.js"
import * as Reference from "./ReferenceAssembler.js"

const statesOf = (chunks: ReadonlyArray<StreamChunk>): ReadonlyArray<Assembler.State> => {
  const states = [Assembler.initial]
  for (const chunk of chunks) states.push(Assembler.step(states[states.length - 1]!, chunk))
  return states
}

/**
 * A stream that ends with a finish of `reasons` whose envelope mostly has one
 * entry per streamed block (so alignment and pruning happen), otherwise any.
 */
const finished = (reasons: fc.Arbitrary<FinishReason>): fc.Arbitrary<ReadonlyArray<StreamChunk>> =>
  fc.oneof(stream, hostile).chain((chunks) => {
    const streamed = Reference.streamedCount(chunks)
    const entries = fc.oneof(
      { weight: 3, arbitrary: fc.array(fc.jsonValue(), { minLength: streamed, maxLength: streamed }) },
      { weight: 1, arbitrary: fc.array(fc.jsonValue(), { maxLength: 6 }) },
      { weight: 1, arbitrary: fc.anything() },
    )
    const replayState = fc.oneof(
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.record({ response: fc.jsonValue() }) },
      { weight: 4, arbitrary: fc.record({ response: fc.jsonValue(), blocks: entries }) },
      { weight: 1, arbitrary: fc.anything() },
    )
    return fc.tuple(reasons, replayState).map(([reason, envelope]): ReadonlyArray<StreamChunk> => [
      ...chunks,
      (envelope === undefined
        ? { type: "finish", reason }
        : { type: "finish", reason, replayState: envelope }) as StreamChunk,
    ])
  })

const expectSame = (chunks: ReadonlyArray<StreamChunk>, state: Assembler.State): void => {
  expect(Assembler.finish(state)).toStrictEqual(Reference.assemble(chunks))
  expect(Assembler.interrupted(state)).toStrictEqual(Reference.interrupted(chunks))
}

describe("the tuned assembler matches the reference", () => {
  it.prop("on streams as providers send them, finished anywhere or not at all", [stream], ([chunks]) => {
    expectSame(chunks, statesOf(chunks).at(-1)!)
  }, RUNS)

  it.prop("on malformed chunk streams", [hostile], ([chunks]) => {
    expectSame(chunks, statesOf(chunks).at(-1)!)
  }, RUNS)

  it.prop("on envelope alignment, whatever the finish", [finished(reason)], ([chunks]) => {
    expectSame(chunks, statesOf(chunks).at(-1)!)
  }, RUNS)

  it.prop("on max-tokens drops and envelope pruning", [finished(fc.constant({ kind: "max-tokens" as const }))], ([chunks]) => {
    expectSame(chunks, statesOf(chunks).at(-1)!)
  }, RUNS)

  it.prop(
    "on older states stepped or finished again, before and after later states were finished",
    [finished(reason), fc.oneof(stream, hostile, finished(reason)), fc.nat(), fc.boolean()],
    ([chunks, other, at, finishFirst]) => {
      const states = statesOf(chunks)
      const k = at % states.length
      const last = states.at(-1)!
      if (finishFirst) expect(Assembler.finish(last)).toStrictEqual(Reference.assemble(chunks))
      // Step the older state down another path; neither path changes the other.
      const prefix = chunks.slice(0, k)
      let branch = states[k]!
      for (const chunk of other) branch = Assembler.step(branch, chunk)
      expectSame([...prefix, ...other], branch)
      expectSame(prefix, states[k]!)
      const once = Assembler.finish(last)
      expect(once).toStrictEqual(Reference.assemble(chunks))
      expect(Assembler.finish(last)).toBe(once)
      // Every state on the way is still what its own prefix makes.
      states.forEach((state, i) => expectSame(chunks.slice(0, i), state))
    },
    RUNS,
  )
})
