// How a turn ends when something goes wrong half-way: a tool that throws, a
// cancel during the last allowed step, a new session whose first write fails,
// the store failing one append, and a tree changed while permission is asked.
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Schema, Stream } from "effect"
import { SessionLog } from "@turnlog/protocol"
import * as Tools from "../src/Tools.js"
import * as C from "./support/chunks.js"
import { promptCancelling, setup, tempDir, types } from "./support/harness.js"

describe("a tool that throws", () => {
  it.scopedLive("is an error result the model sees, and the turn goes on", () =>
    Effect.gen(function*() {
      const buggy = Tools.define({
        name: "buggy",
        description: "A tool with a bug",
        parameters: Schema.Struct({}),
        display: { kind: "other", title: () => "Buggy" },
        prepare: () =>
          Effect.succeed({
            run: Effect.sync((): string => {
              throw new TypeError("Cannot read properties of undefined (reading 'x')")
            }),
          }),
      })
      const h = yield* setup([
        [...C.toolCall(0, "c1", "buggy", "{}"), C.toolCalls()],
        C.reply("Sorry."),
      ], { extraTools: [buggy] })
      const exit = yield* Effect.exit(h.prompt("go"))
      const events = yield* h.events()
      expect({
        exit: exit._tag === "Success" ? exit.value.at(-1) : String(exit.cause),
        last: types(events).filter((t) => !SessionLog.isRawChunk(t)).slice(-4),
        result: events.find((e) => e.type === "tool/result")?.data,
      }).toEqual({
        exit: { type: "turn-end", reason: "completed" },
        last: ["tool/result", "request/start", "assistant/message", "turn/end"],
        result: expect.objectContaining({ code: "TOOL_FAILED" }),
      })
    }))
})

describe("cancel during the last step's tool", () => {
  it.scopedLive("ends the turn as cancelled, not max-steps", () =>
    Effect.gen(function*() {
      const h = yield* setup([
        [...C.toolCall(0, "c1", "run_command", `{"command":"sleep 30"}`), C.toolCalls()],
        C.reply("never"),
      ], { config: { maxSteps: 1 } })
      const updates = yield* promptCancelling(h, "wait", (u) => u.type === "tool-running")
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "cancelled" })
      const events = yield* h.events()
      expect(events.at(-1)!.data).toEqual({ reason: "cancelled" })
    }))
})

describe("a new session whose first write fails", () => {
  it.scopedLive("takes the next prompt once the store works again", () =>
    Effect.gen(function*() {
      let diskFull = true
      const h = yield* setup([C.reply("never"), C.reply("Hello.")], {
        failAppend: (events) => diskFull && events.some((e) => e.type === "turn/start"),
      })
      const failed = yield* Effect.either(h.prompt("hi"))
      expect(Either.isLeft(failed) && failed.left.message).toBe("append (test): disk full")

      diskFull = false
      const again = yield* Effect.either(
        Effect.map(Stream.runCollect(h.loop.prompt(h.id, "hi again")), Chunk.toReadonlyArray),
      )
      expect(Either.isRight(again) ? again.right.at(-1) : (again.left as Error).message).toEqual({
        type: "turn-end",
        reason: "completed",
      })
      expect(types(yield* h.events())).toContain("turn/end")
    }))
})

describe("store failures half-way", () => {
  for (const failing of ["assistant/chunks", "assistant/message", "turn/end", "request/start"] as const) {
    it.scopedLive(`failing the first ${failing} append: contiguous seqs, one closed turn, the next prompt completes`, () =>
      Effect.gen(function*() {
        let armed = true
        const h = yield* setup([
          [...C.text(0, "a", "b", "c"), C.stop()],
          C.reply("ok"),
        ], {
          failAppend: (events) => {
            if (armed && events.some((e) => e.type === failing)) {
              armed = false
              return true
            }
            return false
          },
        })
        const first = yield* Effect.either(h.prompt("one"))
        expect(Either.isLeft(first)).toBe(true)
        const second = yield* h.prompt("two")
        expect(second.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
        const events = yield* h.events()
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
        expect(events.filter((e) => e.type === "turn/end").map((e) => e.data.reason)).toEqual(["interrupted", "completed"])
      }))
  }
})

describe("write_file confinement", () => {
  it.scopedLive("a directory swapped for a symlink while the permission question is open is not written through", () =>
    Effect.gen(function*() {
      const outside = yield* tempDir("turnlog-outside-")
      let cwd = ""
      const h = yield* setup([
        [...C.toolCall(0, "c1", "write_file", `{"path":"sub/a.txt","content":"x"}`), C.toolCalls()],
        C.reply("done"),
      ], {
        permissions: () =>
          Effect.sync(() => {
            // Something else changes the tree while the user reads the question
            // (a checkout, a background job the model started earlier).
            fs.rmSync(path.join(cwd, "sub"), { recursive: true })
            fs.symlinkSync(outside, path.join(cwd, "sub"))
            return "allow" as const
          }),
      })
      cwd = h.cwd
      fs.mkdirSync(path.join(cwd, "sub"))
      yield* h.prompt("write")
      expect(fs.existsSync(path.join(outside, "a.txt"))).toBe(false)
      const result = (yield* h.events()).find((e) => e.type === "tool/result")
      expect(result?.data).toEqual(expect.objectContaining({ code: "PATH_OUTSIDE_CWD" }))
    }))
})
