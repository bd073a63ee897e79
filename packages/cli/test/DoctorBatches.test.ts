// `doctor` decodes each request's chunk batches together: a block-end that
// refers to batches of its request (log version 3) is checked, and one whose
// earlier batches are not there is reported by the event's seq, not read as
// an empty text.
import { Context, Effect, Layer } from "effect"
import { ChunkBatch, type SessionId, SessionLog, type StreamChunk } from "@turnlog/protocol"
import { Memory, SessionStore } from "@turnlog/store"
import { describe, expect, it } from "vitest"
import * as Doctor from "../src/commands/Doctor.js"

const request: SessionLog.EventInput = { type: "request/start", data: { provider: "p", model: "m" } }
const first: Array<StreamChunk> = [{ type: "block-start", index: 0, blockType: "text" }, { type: "text-delta", index: 0, text: "Hello" }]
const last: Array<StreamChunk> = [
  { type: "text-delta", index: 0, text: " world" },
  { type: "block-end", index: 0, block: { type: "text", text: "Hello world" } },
  { type: "finish", reason: { kind: "stop" } },
]
const answer: SessionLog.EventInput = {
  type: "assistant/message",
  data: {
    message: {
      id: "msg_a" as never,
      role: "assistant",
      content: [{ type: "text", text: "Hello world" }],
      source: { kind: "model", provider: "p", model: "m" },
    },
    finish: { kind: "stop" },
  },
}

/** A session of one turn whose answer streamed in two batches (the second referring back), or without the first. */
const examine = (withFirst: boolean) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const store = Context.get(yield* Layer.build(Memory.layerMemory), SessionStore.SessionStore)
    const tracker = new ChunkBatch.Tracker()
    const batches = [SessionLog.batchOf(first, tracker), SessionLog.batchOf(last, tracker)]
    const events = SessionLog.stamp(1, [
      { type: "turn/start", data: {} },
      request,
      ...(withFirst ? batches : batches.slice(1)),
      answer,
      { type: "turn/end", data: { reason: "completed" } },
    ])
    const id = yield* store.create({ cwd: "/w", events })
    yield* store.release(id)
    return { id, entries: yield* Effect.provideService(Doctor.examine([id as SessionId]), SessionStore.SessionStore, store) }
  })))

describe("doctor on batches that refer back across a request", () => {
  it("a block-end referring to its request's earlier batch is sound", async () => {
    const { entries } = await examine(true)
    expect(Doctor.renderAll(entries)).toMatch(/: 6 events, 1 assistant message: 0 replay natively, 0 degrade, 1 without replay state\n {2}ok\n$/)
  })

  it("one whose earlier batch is missing is named by its seq and entry", async () => {
    const { entries, id } = await examine(false)
    expect(Doctor.renderAll(entries)).toBe(
      `session ${id}: cannot be read: its raw chunks do not decode: event 3: entry 1 is a block-end-streamed of index 0, but no earlier batch of its request started a block of that index\n`,
    )
  })
})
