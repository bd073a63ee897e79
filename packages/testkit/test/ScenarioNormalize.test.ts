import { describe, expect, it } from "vitest"
import * as ScenarioNormalize from "../src/ScenarioNormalize.js"

describe("ScenarioNormalize", () => {
  it("numbers ids by first appearance, the same way across every line it sees", () => {
    const n = ScenarioNormalize.make([])
    expect(n.line('{"sessionId":"20261130T034113-0a8d94c9","id":"msg_86bd0307c86746e29d67"}')).toBe(
      '{"sessionId":"<session-1>","id":"<msg-1>"}',
    )
    expect(n.text("session 20250101T000000-0000beef then 20261130T034113-0a8d94c9, msg_00000000000000000001")).toBe(
      "session <session-2> then <session-1>, <msg-2>",
    )
  })

  it("replaces times and the run's paths, the longest path first", () => {
    const n = ScenarioNormalize.make([
      { path: "/tmp/run", as: "<tmp>" },
      { path: "/tmp/run/home", as: "<home>" },
    ])
    expect(n.json({ time: "2026-11-30T03:41:46.421Z", file: "/tmp/run/home/sessions/x.jsonl", other: "/tmp/run/y" }))
      .toEqual({ time: "<time>", file: "<home>/sessions/x.jsonl", other: "<tmp>/y" })
  })

  it("hides the build's version in agentInfo only, and leaves numbers and non-JSON lines readable", () => {
    const n = ScenarioNormalize.make([])
    expect(n.json({ agentInfo: { name: "turnlog", version: "0.1.0" }, version: 1, seq: 7 })).toEqual({
      agentInfo: { name: "turnlog", version: "<version>" },
      version: 1,
      seq: 7,
    })
    expect(n.line("not json at 2026-11-30T03:41:46Z")).toBe("not json at <time>")
  })
})
