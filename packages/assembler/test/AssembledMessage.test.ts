import { describe, expect, it } from "vitest"
import { MessageId } from "@turnlog/protocol"
import { AssembledMessage, Assembler } from "../src/index.js"

describe("AssembledMessage.toMessage", () => {
  it("keeps the blocks and carries the pruned envelope as the model source's replay state", () => {
    const assembled = Assembler.assemble([
      { type: "block-start", index: 0, blockType: "text" },
      { type: "text-delta", index: 0, text: "hi" },
      { type: "block-end", index: 0, block: { type: "text", text: "hi" } },
      {
        type: "finish",
        reason: { kind: "stop" },
        replayState: { response: { kind: "pi-ai", version: 2 }, blocks: [{ type: "text" }] },
      },
    ])
    expect(AssembledMessage.toMessage(assembled, { provider: "anthropic", model: "m" }, MessageId.make("msg_1"))).toEqual({
      id: "msg_1",
      role: "assistant",
      content: [{ type: "text", text: "hi" }],
      source: {
        kind: "model",
        provider: "anthropic",
        model: "m",
        replayState: { response: { kind: "pi-ai", version: 2 }, blocks: [{ type: "text" }] },
      },
    })
  })

  it("has no replayState key when the response had no envelope", () => {
    const message = AssembledMessage.toMessage(Assembler.assemble([{ type: "finish", reason: { kind: "stop" } }]), {
      provider: "p",
      model: "m",
    })
    expect(message.source).toStrictEqual({ kind: "model", provider: "p", model: "m" })
    expect(message.id.startsWith("msg_")).toBe(true)
  })
})
