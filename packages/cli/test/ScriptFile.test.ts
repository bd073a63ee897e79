// A scripted model file (TURNLOG_SCRIPTED_MODEL): one call per line. A line
// that is not a call is refused naming the file, the line and, in a sentence,
// what is wrong where — not the whole schema of a stream chunk.
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import * as ScriptFile from "../src/ScriptFile.js"

const refusal = (text: string): string => {
  const parsed = ScriptFile.parse("model.jsonl", text)
  return Either.isLeft(parsed) ? parsed.left.message : "accepted"
}

describe("ScriptFile.parse", () => {
  it("reads both forms of a call, one per line, skipping blank lines", () => {
    const text = [
      JSON.stringify([{ type: "text-delta", index: 0, text: "hi" }, { type: "finish", reason: { kind: "stop" } }]),
      "",
      JSON.stringify({ chunks: [{ type: "usage", usage: { inputTokens: 1, outputTokens: 2 }, extra: true }], delayMs: 5, stall: true }),
    ].join("\n")
    expect(ScriptFile.parse("model.jsonl", text)).toEqual(Either.right([
      { chunks: [{ type: "text-delta", index: 0, text: "hi" }, { type: "finish", reason: { kind: "stop" } }] },
      { chunks: [{ type: "usage", usage: { inputTokens: 1, outputTokens: 2 } }], delayMs: 5, stall: true },
    ]))
  })

  it.each([
    ["[1,2]", "chunk 0: expected a stream chunk with a type (block-start, text-delta, reasoning-delta, tool-call-delta, block-end, usage, finish), got 1"],
    ['{"chunks":[],"delayMs":-5}', "delayMs: Expected a non-negative number, actual -5"],
    ['[{"type":"text-delta","index":0}]', "chunk 0.text: is missing"],
    [
      '[{"type":"usage","usage":{"inputTokens":1,"outputTokens":2}},{"type":"finish","reason":{"kind":"done"}}]',
      'chunk 1.reason.kind: Expected "stop" | "tool-calls" | "max-tokens" | "aborted" | "error", actual "done"',
    ],
    ['"hello"', 'expected an array of stream chunks or {"chunks": [...], "delayMs"?: n, "stall"?: true}, got "hello"'],
  ])("%s is refused in one short sentence", (line, why) => {
    expect(refusal(`[]\n${line}\n`)).toBe(`scripted model model.jsonl:2: ${why}`)
  })

  it("a line that is not JSON says so, with the parser's reason", () => {
    expect(refusal("{not json")).toMatch(/^scripted model model\.jsonl:1: not JSON \(.+\)$/)
  })
})
