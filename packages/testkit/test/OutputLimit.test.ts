// The loopback's output limit: the answer budget read from each wire's request
// body, and a reply cut where that budget ends, finishing at the output limit.
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { decodeReply, type StreamReply } from "../src/Reply.js"
import * as OutputLimit from "../src/OutputLimit.js"

const reply = (input: unknown): StreamReply => Either.getOrThrow(decodeReply(input)) as StreamReply

describe("OutputLimit", () => {
  it("reads the answer budget as each wire spells it", () => {
    expect(OutputLimit.requested({ max_tokens: 396 })).toBe(396)
    expect(OutputLimit.requested({ max_completion_tokens: 1 })).toBe(1)
    expect(OutputLimit.requested({ max_output_tokens: 4096 })).toBe(4096)
    expect(OutputLimit.requested({ generationConfig: { maxOutputTokens: 2048 } })).toBe(2048)
    expect(OutputLimit.requested({ model: "m" })).toBe(undefined)
  })

  it("leaves a reply that fits as it is", () => {
    const fits = reply({ blocks: [{ type: "text", text: "x".repeat(40) }] })
    expect(OutputLimit.apply(fits, 10)).toBe(fits)
  })

  it("cuts text at four characters a token and finishes at the output limit", () => {
    const long = reply({ blocks: [{ type: "reasoning", text: "r".repeat(8) }, { type: "text", text: "abcdefghijkl" }] })
    expect(OutputLimit.apply(long, 4)).toEqual({
      ...long,
      blocks: [{ type: "reasoning", text: "r".repeat(8) }, { type: "text", text: "abcdefgh" }],
      finish: "max-tokens",
    })
  })

  it("cuts a tool call inside its arguments, leaving it incomplete", () => {
    const call = reply({
      blocks: [{ type: "tool-call", id: "call_1", name: "write_file", arguments: '{"path":"a.txt","content":"long"}' }],
      finish: "tool-calls",
    })
    expect(OutputLimit.apply(call, 3)).toEqual({
      ...call,
      blocks: [{ type: "tool-call", id: "call_1", name: "write_file", arguments: '{"path":"a.t', complete: false }],
      finish: "max-tokens",
    })
  })
})
