// The compiled guard used to validate every loaded event must accept exactly
// what the protocol's decoder accepts — on valid events, on events with one
// value replaced or removed anywhere inside them, and on arbitrary values.
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc } from "effect"
import { SessionLog } from "@turnlog/protocol"
import { explain } from "../src/internal/EventLine.js"
import { compileGuard } from "../src/internal/tuned/Guard.js"
import { parseHeader } from "../src/internal/JsonlScan.js"
import { everyType, stamped } from "./support/fixtures.js"

const is = (u: unknown) => {
  try {
    return Either.isRight(SessionLog.decodeEvent(u))
  } catch {
    // The decoder's error formatter throws on some hostile values; it refuses them all the same.
    return false
  }
}
const guard = compileGuard(SessionLog.SessionEvent)
const events = Arbitrary.make(SessionLog.SessionEvent)

/** Every path to a value inside `value`. */
const paths = (value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> => {
  if (typeof value !== "object" || value === null) return [prefix]
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value)
  return [prefix, ...entries.flatMap(([k, v]) => paths(v, [...prefix, k]))]
}

const replaceAt = (value: unknown, path: ReadonlyArray<string | number>, replacement: unknown): unknown => {
  if (path.length === 0) return replacement
  const [head, ...rest] = path
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaceAt(v, rest, replacement) : v))
  const copy = { ...(value as Record<string, unknown>) }
  copy[head as string] = replaceAt(copy[head as string], rest, replacement)
  return copy
}

const removeAt = (value: unknown, path: ReadonlyArray<string | number>): unknown => {
  if (path.length !== 1 || typeof value !== "object" || value === null || Array.isArray(value)) {
    if (path.length <= 1) return value
    const [head, ...rest] = path
    if (Array.isArray(value)) return value.map((v, i) => (i === head ? removeAt(v, rest) : v))
    return { ...(value as Record<string, unknown>), [head as string]: removeAt((value as Record<string, unknown>)[head as string], rest) }
  }
  const copy = { ...(value as Record<string, unknown>) }
  delete copy[path[0] as string]
  return copy
}

const mutated = events.chain((event) => {
  const all = paths(event)
  return fc.tuple(fc.constantFrom(...all), fc.jsonValue(), fc.boolean()).map(([path, replacement, remove]) =>
    remove ? removeAt(event, path) : replaceAt(event, path, replacement)
  )
})

describe("compiled guard", () => {
  it("accepts the fixture events of every type", () => {
    for (const event of stamped(1, everyType)) expect(guard(event)).toBe(true)
  })

  it("agrees with the decoder on valid events", () => {
    fc.assert(fc.property(events, (event) => guard(event) === is(event) && is(event)), { numRuns: 300 })
  })

  it("agrees with the decoder on events with one value replaced or removed", () => {
    fc.assert(fc.property(mutated, (value) => guard(value) === is(value)), { numRuns: 2000 })
  })

  it("agrees with the decoder on arbitrary values", () => {
    fc.assert(fc.property(fc.anything(), (value) => guard(value) === is(value)), { numRuns: 500 })
  })

  it("explains a refused event in terms of its own type", () => {
    const [event] = stamped(1, [{ type: "turn/end", data: { reason: "completed" } }])
    const text = explain({ ...event, data: { reason: "lunch" } })
    // One sentence, in terms of its own type: no other event type's shape in it.
    expect(text).toBe(`not a valid turn/end event: data.reason: Expected "completed", actual "lunch"`)
  })

  it("refuses a hostile header instead of throwing", () => {
    const refused = parseHeader(`{"type":{"toString":0},"version":1}`, "s.jsonl", "s")
    expect(Either.isLeft(refused) && refused.left.message).toBe(
      `s.jsonl:1: the first line is not a session header (type: Expected "session", actual {"toString":0})`,
    )
  })

  it("refuses what a decoder must refuse", () => {
    const [event] = stamped(1, [{ type: "turn/end", data: { reason: "completed" } }])
    expect(guard({ ...event, seq: 0 })).toBe(false)
    expect(guard({ ...event, seq: 1.5 })).toBe(false)
    expect(guard({ ...event, data: { reason: "lunch" } })).toBe(false)
    expect(guard({ ...event, data: { reason: "completed", failure: undefined } })).toBe(false)
    expect(guard({ ...event, data: { reason: "completed", extra: 1 } })).toBe(true)
    // JSON drops an undefined replay response; the decoder accepts the result, so must loading.
    const [finish] = stamped(1, [{
      type: "assistant/chunk",
      data: { chunk: { type: "finish", reason: { kind: "stop" }, replayState: { response: undefined } } },
    }])
    expect(guard(JSON.parse(JSON.stringify(finish)))).toBe(true)
  })
})
