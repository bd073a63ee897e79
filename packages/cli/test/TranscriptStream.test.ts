// `show` prints a session a turn at a time. Whatever the batches its events
// arrive in, the printed text is the text of the whole-session transcript:
// compactions between turns and after the last one, a compacted turn (known
// from a first pass), a failed attempt's shown text, an open last turn with
// its writer, a torn tail.
import type { SessionLog } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"
import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { JsonWriter } from "../src/commands/Show.js"
import * as Transcript from "../src/Transcript.js"
import * as TranscriptText from "../src/TranscriptText.js"
import { KeptFrom, Printer } from "../src/TranscriptStream.js"

const header: SessionLog.SessionHeader = {
  type: "session",
  version: 1,
  id: "s1" as SessionLog.SessionHeader["id"],
  createdAt: "2026-01-01T00:00:00.000Z",
  cwd: "/w",
}

const stampAll = (events: ReadonlyArray<{ readonly type: string; readonly data: unknown }>) =>
  events.map((e, i) => ({ seq: i + 1, time: "2026-01-01T00:00:01.000Z", ...e })) as unknown as ReadonlyArray<
    SessionLog.SessionEvent
  >

const user = (text: string) => ({
  type: "user/message",
  data: { message: { id: `u-${text}`, role: "user", content: [{ type: "text", text }], source: { kind: "user" } } },
})
const answer = (text: string) => ({
  type: "assistant/message",
  data: {
    message: { id: `a-${text}`, role: "assistant", content: [{ type: "text", text }], source: { kind: "model", provider: "p", model: "m" } },
    finish: { kind: "stop" },
  },
})
const start = { type: "turn/start", data: {} }
const end = (reason = "completed") => ({ type: "turn/end", data: { reason } })
const compaction = (firstKeptSeq: number) => ({
  type: "context/compaction",
  data: { summary: "so far", firstKeptSeq, tokensBefore: 100, tokensAfter: 10, provider: "p", model: "m" },
})
const failedAttempt = [
  { type: "request/start", data: { provider: "p", model: "m" } },
  { type: "assistant/chunk", data: { chunk: { type: "block-start", index: 0, blockType: "text" } } },
  { type: "assistant/chunk", data: { chunk: { type: "text-delta", index: 0, text: "half" } } },
]

const events = stampAll([
  start,
  user("one"),
  answer("1"),
  end(),
  compaction(9),
  start,
  user("two"),
  ...failedAttempt,
  { type: "turn/end", data: { reason: "error", failure: { message: "down", code: "OVERLOADED" } } },
  start,
  user("three"),
  answer("3"),
  end(),
  compaction(14),
  start,
  user("four"),
  answer("4"),
])

/** What `show` prints when the events arrive in batches of `size`. */
const streamed = (all: ReadonlyArray<SessionLog.SessionEvent>, recovery: SessionStore.Recovery, size: number): string => {
  const kept = new KeptFrom()
  for (const event of all) kept.add(event)
  const printer = new Printer(header, kept.value)
  const lines = [TranscriptText.headerLine(header)]
  for (let i = 0; i < all.length; i += size) lines.push(...printer.add(all.slice(i, i + size)).lines)
  lines.push(...printer.finish(recovery).lines)
  return lines.join("\n")
}

describe("show: streamed a turn at a time", () => {
  const recovery: SessionStore.Recovery = { tornTail: { bytes: 7, line: 22 }, openTurn: { seq: 16, holder: { pid: 42, host: "h" } } }

  it("prints what the whole-session transcript prints, for any batch size", () => {
    const whole = TranscriptText.render(Transcript.fromSession({ header, events, recovery }))
    expect(whole).toContain("── turn 2 (compacted: the model sees it only through a summary)")
    expect(whole).toContain("assistant (shown before the failure):")
    expect(whole.split("\n").slice(-3)).toStrictEqual([
      "turn 4 still running: process 42 is writing this session",
      "",
      "a torn tail of 7 bytes at line 22: cut off and kept aside when the session is next opened",
    ])
    for (const size of [1, 2, 3, 5, 8, 100]) expect(streamed(events, recovery, size)).toBe(whole)
  })

  it("prints compactions written after the last turn at the end, as the whole transcript does", () => {
    const closed = stampAll([start, user("one"), answer("1"), end(), compaction(2), compaction(3)])
    const whole = TranscriptText.render(Transcript.fromSession({ header, events: closed, recovery: {} }))
    expect(whole.split("\n").filter((l) => l.startsWith("compaction (between turns)")).length).toBe(2)
    for (const size of [1, 4, 100]) expect(streamed(closed, {}, size)).toBe(whole)
  })
})

describe("show --json: written a turn at a time", () => {
  const written = (transcript: Transcript.Transcript): string => {
    let text = ""
    const writer = new JsonWriter((t) => Effect.sync(() => void (text += t)))
    const { cwd: _c, createdAt: _a, id: _i, turns, ...rest } = transcript
    Effect.runSync(writer.start(header))
    for (const turn of turns) Effect.runSync(writer.turn(turn))
    Effect.runSync(writer.end(rest))
    return text
  }

  it("is byte for byte the whole transcript's JSON, with and without turns", () => {
    const recovery: SessionStore.Recovery = { tornTail: { bytes: 7, line: 22 }, openTurn: { seq: 16, holder: { pid: 42, host: "h" } } }
    const full = Transcript.fromSession({ header, events: stampAll([...events.map(({ data, type }) => ({ data, type })), end(), compaction(3)]), recovery })
    expect(full.trailing?.length).toBe(1)
    expect(written(full)).toBe(`${JSON.stringify(full, null, 2)}\n`)
    const empty = Transcript.fromSession({ header, events: [], recovery: {} })
    expect(written(empty)).toBe(`${JSON.stringify(empty, null, 2)}\n`)
  })
})
