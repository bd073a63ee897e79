// `turnlog show` reads a session from its log alone. Where raw chunks are all
// there is of what the user saw, it reads them: the text a failed attempt had
// shown, and which tool calls an output-limit cut dropped.
import { SessionLog, type StreamChunk } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"
import { describe, expect, it } from "vitest"
import * as Transcript from "../src/Transcript.js"
import * as TranscriptText from "../src/TranscriptText.js"

const session = (events: ReadonlyArray<{ readonly type: string; readonly data: unknown }>): SessionStore.LoadedSession => ({
  header: { type: "session", version: 1, id: "s1" as SessionLog.SessionHeader["id"], createdAt: "2026-01-01T00:00:00.000Z", cwd: "/w" },
  events: events.map((e, i) => ({ seq: i + 1, time: "2026-01-01T00:00:01.000Z", ...e })) as unknown as ReadonlyArray<
    SessionLog.SessionEvent
  >,
  recovery: {},
})

const user = (text: string) => ({
  type: "user/message",
  data: { message: { id: "u1", role: "user", content: [{ type: "text", text }], source: { kind: "user" } } },
})
type Chunks = (...cs: ReadonlyArray<StreamChunk>) => ReadonlyArray<{ readonly type: string; readonly data: unknown }>
/** Raw chunks as either log version writes them: one event each (version 1), or one batch (version 2). */
const FORMS: ReadonlyArray<readonly [string, Chunks]> = [
  ["one event per chunk", (...cs) => cs.map((chunk) => ({ type: "assistant/chunk", data: { chunk } }))],
  ["batched", (...cs) => [SessionLog.batchOf(cs)]],
]
const assistant = (content: ReadonlyArray<unknown>, finish: unknown) => ({
  type: "assistant/message",
  data: { message: { id: "a1", role: "assistant", content, source: { kind: "model", provider: "p", model: "m" } }, finish },
})
const request = { type: "request/start", data: { provider: "p", model: "m" } }
const text = (index: number, t: string): ReadonlyArray<StreamChunk> => [
  { type: "block-start", index, blockType: "text" },
  { type: "text-delta", index, text: t },
]
const body = (s: SessionStore.LoadedSession) => TranscriptText.render(Transcript.fromSession(s)).split("\n").slice(2)

for (const [form, chunks] of FORMS) {
  describe(`show (${form}): a turn stopped at the output limit`, () => {
    it("says no tool call was dropped when the answer had none", () => {
      const s = session([
        { type: "turn/start", data: {} },
        user("tell me"),
        request,
        ...chunks(...text(0, "A long answ"), { type: "finish", reason: { kind: "max-tokens" } }),
        assistant([{ type: "text", text: "A long answ" }], { kind: "max-tokens" }),
        { type: "turn/end", data: { reason: "max-tokens" } },
      ])
      expect(body(s)).toEqual(["── turn 1", "user:", "  tell me", "assistant:", "  A long answ", "turn 1 stopped at the output limit (max tokens)"])
    })

    it("names the tool calls the cut dropped, finished or not", () => {
      const done = JSON.stringify({ path: "out.txt", content: "x" })
      const s = session([
        { type: "turn/start", data: {} },
        user("write it"),
        request,
        ...chunks(
          { type: "block-start", index: 0, blockType: "tool-call" },
          { type: "tool-call-delta", index: 0, id: "c1", name: "write_file", argumentsDelta: done },
          { type: "block-end", index: 0, block: { type: "tool-call", id: "c1", name: "write_file", arguments: done } },
          ...text(1, "And now"),
          { type: "tool-call-delta", index: 2, id: "c2", name: "run_command", argumentsDelta: '{"comm' },
          { type: "finish", reason: { kind: "max-tokens" } },
        ),
        assistant([{ type: "text", text: "And now" }], { kind: "max-tokens" }),
        { type: "turn/end", data: { reason: "max-tokens" } },
      ])
      expect(body(s).at(-1)).toBe(
        "turn 1 stopped at the output limit (max tokens); the tool calls it was making (write_file, run_command) were dropped, not run",
      )
      expect(Transcript.fromSession(s).turns[0]!.end).toEqual({ reason: "max-tokens", dropped: ["write_file", "run_command"] })
    })
  })

  describe(`show (${form}): what the user saw before a turn failed`, () => {
    it("keeps the text the failed attempt had shown, marked as such; a retried attempt that showed nothing adds nothing", () => {
      const failure = { code: "SERVER" as const, message: "connection reset" }
      const s = session([
        { type: "turn/start", data: {} },
        user("answer me"),
        request,
        ...chunks({ type: "finish", reason: { kind: "error", failure: { code: "SERVER", message: "503" } } }),
        request,
        ...chunks(...text(0, "Here is the first half"), { type: "finish", reason: { kind: "error", failure } }),
        { type: "turn/end", data: { reason: "error", failure } },
      ])
      expect(body(s)).toEqual([
        "── turn 1",
        "user:",
        "  answer me",
        "assistant (shown before the failure):",
        "  Here is the first half",
        "turn 1 failed: connection reset (SERVER)",
      ])
    })
  })
}

describe("show: a long tool result cut for display", () => {
  it("never cuts a character in half, and counts what it left out in characters", () => {
    const content = "😀".repeat(3000)
    const s = session([
      { type: "turn/start", data: {} },
      {
        type: "tool/result",
        data: { message: { id: "t1", role: "tool", content: [{ type: "tool-result", toolCallId: "c1", content }], source: { kind: "tool", callId: "c1" } } },
      },
      { type: "turn/end", data: { reason: "completed" } },
    ])
    const shown = body(s)[2]!
    expect(shown).toBe(`  ${"😀".repeat(2000)}… (1000 more characters)`)
  })
})
