// Cancellation: whatever the turn was waiting for — the stream, a permission
// question, a running tool — it closes itself in the log, keeps what the user
// already saw, leaves no tool call without a result, and the session goes on.
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Either, Fiber, Stream } from "effect"
import type { StreamChunk } from "@turnlog/protocol"
import * as C from "./support/chunks.js"
import { ONE_STEP_TURN, outline, promptCancelling, setup } from "./support/harness.js"

const toolResults = (events: ReadonlyArray<{ type: string; data: unknown }>) => events.flatMap((e) => (e.type === "tool/result" ? [e.data] : []))

describe("cancel", () => {
  it.scopedLive("mid-stream: the interrupted text and reasoning are stored without replay state", () =>
    Effect.gen(function*() {
      const streamed: ReadonlyArray<StreamChunk> = [
        ...C.reasoning(0, "The user wants ", "a greeting."),
        { type: "block-start", index: 1, blockType: "text" },
        { type: "text-delta", index: 1, text: "Hello" },
        { type: "text-delta", index: 1, text: " wor" },
      ]
      const h = yield* setup([{ chunks: streamed, stall: true }, C.reply("Hello again.")])
      const updates = yield* promptCancelling(h, "greet me", (u) => u.type === "text-delta" && u.text === " wor")
      expect(updates).toEqual([
        { type: "turn-start" },
        { type: "reasoning-delta", text: "The user wants " },
        { type: "reasoning-delta", text: "a greeting." },
        { type: "text-delta", text: "Hello" },
        { type: "text-delta", text: " wor" },
        { type: "turn-end", reason: "cancelled" },
      ])
      const events = yield* h.events()
      expect(outline(events)).toEqual(ONE_STEP_TURN)
      const stored = events.find((e) => e.type === "assistant/message")!
      expect(stored.data).toEqual({
        message: {
          id: expect.stringMatching(/^msg_/),
          role: "assistant",
          content: [{ type: "reasoning", text: "The user wants a greeting." }, { type: "text", text: "Hello wor" }],
          source: { kind: "model", provider: "scripted", model: "test-model" },
        },
        finish: { kind: "aborted", failure: { code: "CANCELLED", message: "the turn was cancelled" } },
        interrupted: true,
      })
      expect(events.at(-1)!.data).toEqual({ reason: "cancelled" })
      expect(h.ops.slice(-2)).toEqual(["append turn/end", "flush"])

      // The next prompt works, and its request carries what the user saw.
      const next = yield* Effect.map(Stream.runCollect(h.loop.prompt(h.id, "again")), Chunk.toReadonlyArray)
      expect(next.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const requests = yield* h.requests
      expect(requests[1]!.messages.map((m) => m.content)).toEqual([
        [{ type: "text", text: "greet me" }],
        stored.data.message.content,
        [{ type: "text", text: "again" }],
      ])
    }))

  it.scopedLive("while a command runs: it is killed and answered as cancelled", () =>
    Effect.gen(function*() {
      const h = yield* setup([
        [...C.toolCall(0, "c1", "run_command", `{"command":"sleep 30"}`), C.toolCalls()],
        C.reply("ok"),
      ])
      const updates = yield* promptCancelling(h, "wait", (u) => u.type === "tool-running")
      expect(updates.slice(-2)).toEqual([
        {
          type: "tool-result",
          callId: "c1",
          name: "run_command",
          content: "run_command was cancelled while running; it may or may not have completed its work",
          isError: true,
        },
        { type: "turn-end", reason: "cancelled" },
      ])
      const events = yield* h.events()
      expect(toolResults(events)).toEqual([{
        message: expect.objectContaining({
          content: [{
            type: "tool-result",
            toolCallId: "c1",
            content: "run_command was cancelled while running; it may or may not have completed its work",
            isError: true,
          }],
        }),
        code: "TOOL_CANCELLED",
      }])
      const next = yield* Effect.map(Stream.runCollect(h.loop.prompt(h.id, "next")), Chunk.toReadonlyArray)
      expect(next.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const roles = (yield* h.requests)[1]!.messages.map((m) => m.source.kind)
      expect(roles).toEqual(["user", "model", "tool", "user"])
    }))

  it.scopedLive("while a permission question is open: every call is answered as not run", () =>
    Effect.gen(function*() {
      const h = yield* setup([
        [
          ...C.toolCall(0, "c1", "write_file", `{"path":"a.txt","content":"a"}`),
          ...C.toolCall(1, "c2", "write_file", `{"path":"b.txt","content":"b"}`),
          C.toolCalls(),
        ],
      ], { permissions: () => Effect.never })
      const updates = yield* promptCancelling(h, "write", (u) => u.type === "tool-call")
      expect(updates.map((u) => u.type)).toEqual(["turn-start", "tool-call", "tool-result", "turn-end"])
      const events = yield* h.events()
      expect(events.filter((e) => e.type === "tool/call").map((e) => e.data.callId)).toEqual(["c1"])
      expect(toolResults(events).map((d: any) => [d.message.source.callId, d.code, d.message.content[0].content]))
        .toEqual([
          ["c1", "TOOL_NOT_STARTED", "write_file did not run: the turn was cancelled"],
          ["c2", "TOOL_NOT_STARTED", "write_file did not run: the turn was cancelled"],
        ])
      expect(events.at(-1)!.data).toEqual({ reason: "cancelled" })
    }))

  it.scopedLive("a reader that stops early cancels the turn, and the log is closed", () =>
    Effect.gen(function*() {
      const h = yield* setup([{ chunks: [{ type: "text-delta", index: 0, text: "partial" }], stall: true }])
      const first = yield* Stream.runCollect(Stream.take(h.loop.prompt(h.id, "hi"), 2))
      expect(Chunk.toReadonlyArray(first)).toEqual([{ type: "turn-start" }, { type: "text-delta", text: "partial" }])
      const events = yield* h.events()
      expect(events.at(-1)!.data).toEqual({ reason: "cancelled" })
      expect(events.find((e) => e.type === "assistant/message")!.data).toMatchObject({
        message: { content: [{ type: "text", text: "partial" }] },
        interrupted: true,
      })
    }))

  it.scopedLive("one prompt at a time: a second prompt is AgentBusy; cancel without a turn does nothing", () =>
    Effect.gen(function*() {
      const h = yield* setup([{ chunks: [], stall: true }, C.reply("after")])
      yield* h.loop.cancel(h.id)
      const started = yield* Deferred.make<void>()
      const running = yield* h.loop.prompt(h.id, "first").pipe(
        Stream.tap(() => Deferred.succeed(started, undefined)),
        Stream.runCollect,
        Effect.fork,
      )
      yield* Deferred.await(started)
      const busy = yield* Effect.either(Stream.runCollect(h.loop.prompt(h.id, "second")))
      expect(Either.isLeft(busy) && busy.left._tag).toBe("AgentBusy")
      expect(Either.isLeft(busy) && busy.left.message).toBe(`session ${h.id} already has a turn in flight`)
      const loadBusy = yield* Effect.either(h.loop.load(h.id))
      expect(Either.isLeft(loadBusy) && loadBusy.left._tag).toBe("AgentBusy")
      yield* h.loop.cancel(h.id)
      const first = yield* Fiber.join(running)
      expect(Chunk.toReadonlyArray(first).at(-1)).toEqual({ type: "turn-end", reason: "cancelled" })
      const after = yield* Effect.map(Stream.runCollect(h.loop.prompt(h.id, "second")), Chunk.toReadonlyArray)
      expect(after.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      // The first turn streamed nothing: no message, and the second request goes on from the first user message.
      expect((yield* h.requests)[1]!.messages.map((m) => m.content)).toEqual([
        [{ type: "text", text: "first" }],
        [{ type: "text", text: "second" }],
      ])
    }))
})
