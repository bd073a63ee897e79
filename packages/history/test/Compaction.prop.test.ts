import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import type { Message } from "@turnlog/protocol"
import { Compaction, History } from "@turnlog/history"
import { assistant, Log, result, user } from "./support/log.js"

const RUNS = { fastCheck: { numRuns: 500 } }

/** A turn: its user text's length, then steps of tool calls (results in call order or reversed), then maybe a final answer. */
const turn = fc.record({
  say: fc.nat(400),
  steps: fc.array(fc.record({ calls: fc.integer({ min: 1, max: 3 }), reversed: fc.boolean(), size: fc.nat(2000) }), {
    maxLength: 3,
  }),
  answer: fc.option(fc.nat(400), { nil: undefined }),
})
type Turn = typeof turn extends fc.Arbitrary<infer T> ? T : never

const write = (log: Log, turns: ReadonlyArray<Turn>, tag: string) => {
  turns.forEach((t, i) => {
    const n = `${tag}${i}`
    log.turn().say(user(`u${n}`, "q".repeat(t.say)))
    t.steps.forEach((step, s) => {
      const calls = Array.from({ length: step.calls }, (_, c) => `c${n}.${s}.${c}`)
      log.reply(assistant(`a${n}.${s}`, s % 2 === 0 ? "" : "let me look", calls))
      for (const call of step.reversed ? [...calls].reverse() : calls) log.tool(result(`t${call}`, call, "r".repeat(step.size)))
    })
    if (t.answer !== undefined) log.reply(assistant(`b${n}`, "a".repeat(t.answer)))
    log.end()
  })
  return log
}

/** What is wrong with the tool pairing of a request's messages, or "ok". */
const pairing = (messages: ReadonlyArray<Message>): string => {
  const calls = new Set<string>()
  const answered = new Set<string>()
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === "tool-call") calls.add(b.id)
      if (b.type === "tool-result") {
        if (!calls.has(b.toolCallId)) return `result ${b.toolCallId} without its call`
        answered.add(b.toolCallId)
      }
    }
  }
  for (const c of calls) if (!answered.has(c)) return `call ${c} without its result`
  return "ok"
}

describe("compaction keeps every tool call with its result", () => {
  it.prop(
    "for any history and any cut point, the reconstructed request holds no result without its call nor call without its result",
    [fc.array(turn, { minLength: 1, maxLength: 8 }), fc.nat(1_000_000), fc.array(turn, { maxLength: 2 }), fc.boolean()],
    ([before, at, after, withSummaryRequest]) => {
      const log = write(new Log(), before, "x")
      // any event of the history, uniformly (a double would favour the ends)
      const firstKeptSeq = 1 + (at % (log.seq - 1))
      if (withSummaryRequest) log.summaryRequest("so far")
      log.compaction("so far", firstKeptSeq)
      write(log, after, "y")
      const messages = History.fromEvents(log.events)
      expect(pairing(messages)).toBe("ok")
      // nothing logged after the compaction is lost
      for (const e of log.events.slice(log.events.findIndex((e) => e.type === "context/compaction"))) {
        if (e.type === "user/message" || e.type === "tool/result") expect(messages).toContain(e.data.message)
      }
    },
    RUNS,
  )

  it.prop(
    "a selected cut keeps at least keepRecentTokens when any allowed cut does, never parts a user message from its reply, and is exactly what the next request holds",
    [fc.array(turn, { minLength: 1, maxLength: 10 }), fc.integer({ min: 1, max: 4000 })],
    ([turns, keep]) => {
      const log = write(new Log(), turns, "x")
      const view = History.view(log.events)
      const cut = Compaction.selectCut(log.events, keep)
      if (cut === undefined) return
      expect([...cut.summarised, ...cut.kept]).toEqual(view.messages)
      expect(cut.summarised.length).toBeGreaterThan(0)
      const first = cut.kept[0]!
      const last = cut.summarised[cut.summarised.length - 1]!
      expect(first.role === "assistant" && last.role === "user" && last.source.kind === "user").toBe(false)
      const allowed = Compaction.cutPoints(view.messages)
      const keptTokens = (from: number) => view.messages.slice(from).reduce((n, m) => n + Compaction.messageTokens(m), 0)
      if (allowed.some((ok, c) => ok && keptTokens(c) >= keep)) expect(cut.keptTokens).toBeGreaterThanOrEqual(keep)
      // the latest such cut: no allowed cut after it keeps enough
      const at = view.messages.length - cut.kept.length
      for (let c = at + 1; c < allowed.length; c++) if (allowed[c]) expect(keptTokens(c)).toBeLessThan(keep)
      log.compaction("summary", cut.firstKeptSeq)
      const messages = History.fromEvents(log.events)
      expect(messages.slice(1)).toEqual(cut.kept)
      expect(pairing(messages)).toBe("ok")
    },
    RUNS,
  )
})
