// Assemble one provider stream into a durable message: a response cut off at
// the output limit while a tool call streams. The assembler drops the unsafe
// tool call and prunes the replay envelope's per-block entries with it.
import { AssembledMessage, Assembler } from "@turnlog/assembler"
import type { StreamChunk } from "@turnlog/protocol"

const chunks: ReadonlyArray<StreamChunk> = [
  { type: "block-start", index: 0, blockType: "text" },
  { type: "text-delta", index: 0, text: "Reading the file." },
  { type: "block-end", index: 0, block: { type: "text", text: "Reading the file." } },
  { type: "block-start", index: 1, blockType: "tool-call" },
  { type: "tool-call-delta", index: 1, id: "call_1", name: "read_file", argumentsDelta: '{"path":"REA' },
  {
    type: "finish",
    reason: { kind: "max-tokens" },
    replayState: {
      response: { kind: "pi-ai", version: 2, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", stopReason: "length" },
      blocks: [{ type: "text", textSignature: "sig-0" }, { type: "tool-call" }],
    },
  },
]

const assembled = Assembler.assemble(chunks)
const message = AssembledMessage.toMessage(assembled, { provider: "anthropic", model: "claude-sonnet-4-5" })
console.log(JSON.stringify({ finish: assembled.finish, content: message.content, source: message.source }))
