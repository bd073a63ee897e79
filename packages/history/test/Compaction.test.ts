import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { Compaction, History } from "@turnlog/history"
import { assistant, Log, result, user } from "./support/log.js"

const settings16k = Compaction.defaults(16_384)
const settings200k = Compaction.defaults(200_000)

describe("Compaction.defaults", () => {
  it("scale with the model: a quarter / two fifths of a small window, 16,384 / 20,000 tokens of a large one", () => {
    expect(settings16k).toEqual({ enabled: true, reserveTokens: 4096, keepRecentTokens: 6553, toolResultShare: 0.25 })
    expect(settings200k).toEqual({ enabled: true, reserveTokens: 16_384, keepRecentTokens: 20_000, toolResultShare: 0.25 })
  })
})

describe("Compaction.decide", () => {
  it("compacts a 16k model's request past 12,288 tokens, and says when the answer would get under 1,024", () => {
    expect(Compaction.decide(12_288, 16_384, settings16k)).toEqual({ compact: false, answerBudget: 4096 })
    expect(Compaction.decide(12_289, 16_384, settings16k)).toEqual({ compact: true, reason: "threshold", answerBudget: 4095 })
    expect(Compaction.decide(15_360, 16_384, settings16k)).toEqual({ compact: true, reason: "threshold", answerBudget: 1024 })
    expect(Compaction.decide(15_361, 16_384, settings16k)).toEqual({ compact: true, reason: "answer-budget", answerBudget: 1023 })
    expect(Compaction.decide(20_000, 16_384, settings16k)).toEqual({ compact: true, reason: "answer-budget", answerBudget: -3616 })
  })

  it("compacts a 200k model's request past 183,616 tokens, and says when the answer would get under 4,096", () => {
    expect(Compaction.decide(183_616, 200_000, settings200k)).toEqual({ compact: false, answerBudget: 16_384 })
    expect(Compaction.decide(183_617, 200_000, settings200k)).toEqual({ compact: true, reason: "threshold", answerBudget: 16_383 })
    expect(Compaction.decide(195_905, 200_000, settings200k)).toEqual({ compact: true, reason: "answer-budget", answerBudget: 4095 })
  })

  it("never compacts when disabled", () => {
    expect(Compaction.decide(20_000, 16_384, { ...settings16k, enabled: false })).toEqual({ compact: false, answerBudget: -3616 })
  })
})

describe("Compaction.settingsFor", () => {
  const refused = (input: unknown, window = 16_384) => {
    const settings = Compaction.settingsFor(input, window)
    if (Either.isRight(settings)) throw new Error(`accepted ${JSON.stringify(input)}`)
    return [settings.left.field, settings.left.message]
  }

  it("gives the model's defaults for no setting, and replaces each default the user gives", () => {
    expect(Compaction.settingsFor(undefined, 16_384)).toEqual(Either.right(settings16k))
    expect(Compaction.settingsFor({}, 200_000)).toEqual(Either.right(settings200k))
    expect(Compaction.settingsFor({ enabled: false, reserveTokens: 2000, keepRecentTokens: 8000, toolResultShare: 0.5 }, 16_384))
      .toEqual(Either.right({ enabled: false, reserveTokens: 2000, keepRecentTokens: 8000, toolResultShare: 0.5 }))
  })

  it("refuses a bad setting with one sentence naming the field", () => {
    expect(refused("yes")).toEqual([
      "compaction",
      'compaction must be an object with enabled, reserveTokens, keepRecentTokens, toolResultShare, got "yes"',
    ])
    expect(refused({ reserve: 100 })).toEqual([
      "compaction.reserve",
      "compaction.reserve is not a setting: the settings are enabled, reserveTokens, keepRecentTokens, toolResultShare",
    ])
    expect(refused({ enabled: "no" })).toEqual(["compaction.enabled", 'compaction.enabled must be true or false, got "no"'])
    expect(refused({ reserveTokens: -5 })).toEqual([
      "compaction.reserveTokens",
      "compaction.reserveTokens must be a whole number of tokens above 0, got -5",
    ])
    expect(refused({ keepRecentTokens: 10.5 })).toEqual([
      "compaction.keepRecentTokens",
      "compaction.keepRecentTokens must be a whole number of tokens above 0, got 10.5",
    ])
    expect(refused({ toolResultShare: 2 })).toEqual([
      "compaction.toolResultShare",
      "compaction.toolResultShare must be a share of the context window above 0 and at most 1, got 2",
    ])
    expect(refused({ reserveTokens: 9000 })).toEqual([
      "compaction.reserveTokens",
      "compaction.reserveTokens is 9000, more than half of the model's 16384-token context window: use at most 8192",
    ])
    expect(refused({ keepRecentTokens: 9000 })).toEqual([
      "compaction.keepRecentTokens",
      "compaction.keepRecentTokens is 9000, and keepRecentTokens (9000) plus reserveTokens (4096) must leave a quarter of the model's 16384-token context window for the summary and what follows it: keep the two at most 12288 together",
    ])
    expect(refused({ reserveTokens: 8000 })[0]).toBe("compaction.reserveTokens")
  })
})

describe("Compaction.estimate", () => {
  // 84 characters of text: with a message's 16 of framing, 100 characters, 25 tokens
  const text = "x".repeat(84)

  it("is the latest reported usage (input, cached input and output) plus the characters logged since", () => {
    const log = new Log().turn().say(user("u1", text))
      .reply(assistant("a1", text, ["c1"]), { inputTokens: 1000, cacheReadTokens: 500, cacheWriteTokens: 20, outputTokens: 200 })
      .tool(result("t1", "c1", "y".repeat(384)))
    expect(Compaction.estimate(log.events)).toEqual({ tokens: 1000 + 500 + 20 + 200 + 100, basis: "usage" })
    // a tool result counts only what the request will send of it
    expect(Compaction.estimate(log.events, { toolResultLimitChars: 84 })).toEqual({ tokens: 1720 + 25, basis: "usage" })
  })

  it("counts characters when no response reported usage, with what every request carries besides", () => {
    const log = new Log().turn().say(user("u1", text)).reply(assistant("a1", text)).say(user("u2", text))
    expect(Compaction.estimate(log.events, { fixedTokens: 300 })).toEqual({ tokens: 75 + 300, basis: "chars" })
  })

  it("counts characters when a response counted no input (a server that sends no usage reads as zeros)", () => {
    const log = new Log().turn().say(user("u1", text))
      .reply(assistant("a1", text), { inputTokens: 0, outputTokens: 0 })
      .say(user("u2", text))
    expect(Compaction.estimate(log.events, { fixedTokens: 300 })).toEqual({ tokens: 75 + 300, basis: "chars" })
  })

  it("never anchors on a summary request's usage: after a compaction it starts from tokensAfter", () => {
    const log = new Log().turn().say(user("u1", text))
      .reply(assistant("a1", text), { inputTokens: 90_000, outputTokens: 10 })
      .turn().say(user("u2", text))
      .summaryRequest("summary", { inputTokens: 50_000, outputTokens: 500 })
      .compaction("summary", 2, 4000)
    expect(Compaction.estimate(log.events)).toEqual({ tokens: 4000, basis: "compaction" })
    log.reply(assistant("a2", text))
    expect(Compaction.estimate(log.events)).toEqual({ tokens: 4025, basis: "compaction" })
    // a summary request whose compaction failed: the figure rests on the last conversation response
    const failed = new Log().turn().say(user("u1", text))
      .reply(assistant("a1", text), { inputTokens: 9000, outputTokens: 10 })
      .turn().say(user("u2", text))
      .summaryRequest("half", { inputTokens: 50_000, outputTokens: 500 })
      .add({ type: "turn/end", data: { reason: "error" } })
    expect(Compaction.estimate(failed.events)).toEqual({ tokens: 9010 + 25, basis: "usage" })
  })
})

describe("Compaction.selectCut", () => {
  const text = "x".repeat(84) // 25 tokens a message
  const turns = (n: number) => {
    const log = new Log()
    for (let i = 1; i <= n; i++) log.turn().say(user(`u${i}`, text)).reply(assistant(`a${i}`, text)).end()
    return log
  }

  it("keeps the most recent turns worth at least keepRecentTokens, cut at a turn's start", () => {
    const log = turns(10)
    const cut = Compaction.selectCut(log.events, 120)!
    expect(cut.firstKeptSeq).toBe(log.seqOf("u8"))
    expect(cut.kept.map((m) => m.id)).toEqual(["u8", "a8", "u9", "a9", "u10", "a10"])
    expect(cut.summarised.map((m) => m.id)).toEqual(["u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4", "u5", "a5", "u6", "a6", "u7", "a7"])
    expect([cut.keptTokens, cut.summarisedTokens, cut.previousSummary]).toEqual([150, 350, undefined])
  })

  it("never parts a tool call from its result, nor a user message from its reply", () => {
    const log = new Log()
      .turn().say(user("u1", text)).reply(assistant("a1", text)).end()
      .turn().say(user("u2", text)).reply(assistant("a2", text, ["c1", "c2"]))
      .tool(result("t1", "c1", text)).tool(result("t2", "c2", text)).reply(assistant("a3", text)).end()
    // a3 is 25 tokens and may start the kept part (a step's start, after the results it follows)
    expect(Compaction.selectCut(log.events, 25)!.kept.map((m) => m.id)).toEqual(["a3"])
    // more than that: not before t2 or t1 (results), nor before a2 (u2's reply), so before u2
    expect(Compaction.selectCut(log.events, 26)!.kept.map((m) => m.id)).toEqual(["u2", "a2", "t1", "t2", "a3"])
    expect(Compaction.selectCut(log.events, 136)!.kept.map((m) => m.id)).toEqual(["u2", "a2", "t1", "t2", "a3"])
    // more than the second turn holds: no allowed cut keeps that much, so the earliest one is taken
    expect(Compaction.selectCut(log.events, 137)!.kept.map((m) => m.id)).toEqual(["u2", "a2", "t1", "t2", "a3"])
    // the whole history (186 tokens) within keepRecentTokens: nothing to summarise
    expect(Compaction.selectCut(log.events, 186)).toBeUndefined()
    expect(Compaction.selectCut(log.events, 185)!.firstKeptSeq).toBe(log.seqOf("u2"))
  })

  it("extends the previous summary, and finds nothing to cut in a history within keepRecentTokens", () => {
    const log = turns(6)
    log.compaction("earlier", log.seqOf("u3"))
    const cut = Compaction.selectCut(log.events, 60)!
    expect(cut.previousSummary).toBe("earlier")
    // 200 tokens since the compaction: keeping 60 cuts before u5 (u6 and a6 are only 50)
    expect(cut.summarised.map((m) => m.id)).toEqual(["u3", "a3", "u4", "a4"])
    expect(Compaction.selectCut(turns(2).events, 100)).toBeUndefined()
  })

  it("after the cut, the request is the summary and exactly the kept messages", () => {
    const log = turns(10)
    const cut = Compaction.selectCut(log.events, 120)!
    log.compaction("s", cut.firstKeptSeq)
    expect(History.fromEvents(log.events).slice(1)).toEqual(cut.kept)
    expect(Compaction.tokensAfter(cut, "s", 300)).toBe(300 + 57 + 150)
  })
})
