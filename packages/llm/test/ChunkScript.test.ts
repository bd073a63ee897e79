import { describe, expect, it } from "vitest"
import { ChunkScript } from "../src/index.js"

describe("ChunkScript.response", () => {
  it("streams text then a tool call and finishes with tool-calls", () => {
    expect(ChunkScript.response([ChunkScript.text("ok"), ChunkScript.toolCall("c1", "read_file", { path: "a" })])).toEqual([
      { type: "block-start", index: 0, blockType: "text" },
      { type: "text-delta", index: 0, text: "ok" },
      { type: "block-end", index: 0, block: { type: "text", text: "ok" } },
      { type: "block-start", index: 1, blockType: "tool-call" },
      { type: "tool-call-delta", index: 1, id: "c1", name: "read_file", argumentsDelta: '{"path":"a"}' },
      { type: "block-end", index: 1, block: { type: "tool-call", id: "c1", name: "read_file", arguments: '{"path":"a"}' } },
      { type: "finish", reason: { kind: "tool-calls" } },
    ])
  })

  it("leaves an open tool call unended and carries usage, the given finish and envelope", () => {
    const chunks = ChunkScript.response(
      [ChunkScript.reasoning("r"), { type: "tool-call", id: "c", name: "n", arguments: '{"a":', open: true }],
      {
        finish: { kind: "max-tokens" },
        usage: { inputTokens: 3, outputTokens: 4 },
        replayState: { response: { kind: "x" } },
      },
    )
    expect(chunks.slice(3)).toEqual([
      { type: "block-start", index: 1, blockType: "tool-call" },
      { type: "tool-call-delta", index: 1, id: "c", name: "n", argumentsDelta: '{"a":' },
      { type: "usage", usage: { inputTokens: 3, outputTokens: 4 } },
      { type: "finish", reason: { kind: "max-tokens" }, replayState: { response: { kind: "x" } } },
    ])
  })

  it("finishes a text-only response with stop", () => {
    expect(ChunkScript.response([ChunkScript.text("a")]).at(-1)).toEqual({ type: "finish", reason: { kind: "stop" } })
  })

  it("with pieces, streams text a few words at a time and a tool call's arguments in two halves", () => {
    const chunks = ChunkScript.response(
      [ChunkScript.text("one two three four"), ChunkScript.toolCall("c", "n", { a: 1 })],
      { deltas: "pieces" },
    )
    expect(chunks.filter((c) => c.type === "text-delta" || c.type === "tool-call-delta")).toEqual([
      { type: "text-delta", index: 0, text: "one two three " },
      { type: "text-delta", index: 0, text: "four" },
      { type: "tool-call-delta", index: 1, id: "c", name: "n", argumentsDelta: '{"a' },
      { type: "tool-call-delta", index: 1, id: "c", argumentsDelta: '":1}' },
    ])
  })
})
