// `doctor` reports each message a provider refused to take replay state for,
// with the provider's reason, and the compaction the history starts from;
// `show` prints a compaction made inside a turn and hides its summary request.
import type { SessionLog } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"
import { describe, expect, it } from "vitest"
import * as Doctor from "../src/commands/Doctor.js"
import * as Transcript from "../src/Transcript.js"
import * as TranscriptText from "../src/TranscriptText.js"

const session = (events: ReadonlyArray<{ readonly type: string; readonly data: unknown }>): SessionStore.LoadedSession => ({
  header: { type: "session", version: 1, id: "s1" as SessionLog.SessionHeader["id"], createdAt: "2026-01-01T00:00:00.000Z", cwd: "/w" },
  events: events.map((e, i) => ({ seq: i + 1, time: "2026-01-01T00:00:01.000Z", ...e })) as unknown as ReadonlyArray<
    SessionLog.SessionEvent
  >,
  recovery: {},
})

const user = (id: string, text: string) => ({
  type: "user/message",
  data: { message: { id, role: "user", content: [{ type: "text", text }], source: { kind: "user" } } },
})
const assistant = (id: string, text: string) => ({
  type: "assistant/message",
  data: {
    message: { id, role: "assistant", content: [{ type: "text", text }], source: { kind: "model", provider: "p", model: "m" } },
    finish: { kind: "stop" },
  },
})
const turn = (n: number) => [
  { type: "turn/start", data: {} },
  user(`u${n}`, `question ${n}`),
  { type: "request/start", data: { provider: "p", model: "m", step: 1, attempt: 1 } },
  assistant(`a${n}`, `answer ${n}`),
  { type: "turn/end", data: { reason: "completed" } },
]

const log = session([
  ...turn(1), // seq 1-5
  ...turn(2), // seq 6-10
  { type: "turn/start", data: {} }, // 11
  user("u3", "question 3"), // 12
  { type: "request/start", data: { provider: "p", model: "m", step: 1, attempt: 1, purpose: "compaction" } }, // 13
  assistant("s1", "the summary text"), // 14
  {
    type: "context/compaction",
    data: { summary: "the summary text", firstKeptSeq: 7, tokensBefore: 9000, tokensAfter: 3000, provider: "p", model: "m" },
  }, // 15
  { type: "request/start", data: { provider: "p", model: "m", step: 1, attempt: 1 } }, // 16
  {
    type: "replay/degrade",
    data: { messageIds: ["a2"], reason: "messages.1.content.0: Invalid `signature` in `thinking` block", provider: "p", model: "m" },
  }, // 17
  { type: "request/start", data: { provider: "p", model: "m", step: 1, attempt: 2 } }, // 18
  assistant("a3", "answer 3"), // 19
  { type: "turn/end", data: { reason: "completed" } }, // 20
])

describe("doctor on a session with a refused replay and a compaction", () => {
  it("names the refused message with the provider's reason, and where requests start", () => {
    const report = Doctor.diagnose(log)
    expect(report.refused).toEqual([{
      seq: 17,
      messageIds: ["a2"],
      route: "p/m",
      reason: "messages.1.content.0: Invalid `signature` in `thinking` block",
    }])
    expect(Doctor.render(report).split("\n").slice(1)).toEqual([
      "  refused by p/m (event 17), sent provider-neutral since: a2: messages.1.content.0: Invalid `signature` in `thinking` block",
      "  compacted once: requests start from a summary, then the history from event 7",
      "  ok",
    ])
  })
})

describe("show on the same session", () => {
  it("marks the summarised turn, prints the compaction in its turn, and not the summary as an answer", () => {
    const lines = TranscriptText.render(Transcript.fromSession(log)).split("\n").slice(1)
    expect(lines).toEqual([
      "",
      "── turn 1 (compacted: the model sees it only through a summary)",
      "user:",
      "  question 1",
      "assistant:",
      "  answer 1",
      "turn 1 completed",
      "",
      "── turn 2",
      "user:",
      "  question 2",
      "assistant:",
      "  answer 2",
      "turn 2 completed",
      "",
      "── turn 3",
      "user:",
      "  question 3",
      "compaction: the history before event 7 summarised by p/m, about 9000 → 3000 tokens:",
      "  the summary text",
      "assistant:",
      "  answer 3",
      "turn 3 completed",
    ])
  })
})
