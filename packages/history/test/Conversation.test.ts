import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { History, InvalidReplayState, type ReplayCodec, type ReplayDiagnostic } from "@turnlog/history"
import { assistant, Log, result, user } from "./support/log.js"

const ids = (messages: ReadonlyArray<{ readonly id: string }>) => messages.map((m) => m.id)

/** Two turns, the second with a tool step, then a third. */
const threeTurns = () =>
  new Log()
    .turn().say(user("u1", "hello")).reply(assistant("a1", "hi")).end()
    .turn().say(user("u2", "read x")).reply(assistant("a2", "", ["c1"])).tool(result("t1", "c1", "x's text"))
    .reply(assistant("a3", "x says hi")).end()
    .turn().say(user("u3", "thanks")).reply(assistant("a4", "welcome")).end()

describe("History.fromEvents after a compaction", () => {
  it("starts with the summary as one user-role message framed as earlier conversation, then the events from firstKeptSeq on", () => {
    const log = threeTurns()
    log.compaction("The user said hello.", log.seqOf("u2"))
    const compactionSeq = log.seq - 1
    log.turn().say(user("u4", "more")).reply(assistant("a5", "sure")).end()
    const messages = History.fromEvents(log.events)
    expect(ids(messages)).toEqual([`compaction-${compactionSeq}`, "u2", "a2", "t1", "a3", "u3", "a4", "u4", "a5"])
    expect(messages[0]).toEqual({
      id: `compaction-${compactionSeq}`,
      role: "user",
      content: [{
        type: "text",
        text:
          "The conversation before this point was compacted to fit the context window. This is a summary of that earlier conversation, written for you; the messages after it continue where it ends.\n\n<summary>\nThe user said hello.\n</summary>",
      }],
      source: { kind: "system" },
    })
  })

  it("starts from the latest compaction only", () => {
    const log = threeTurns()
    log.compaction("first", log.seqOf("u2"))
    log.compaction("second", log.seqOf("u3"))
    const messages = History.fromEvents(log.events)
    expect(ids(messages)).toEqual([`compaction-${log.seq - 1}`, "u3", "a4"])
    expect(messages[0]!.content[0]).toMatchObject({ text: expect.stringContaining("<summary>\nsecond\n</summary>") })
  })

  it("leaves a compaction's own summary request out of the history, its usage and message included", () => {
    const log = threeTurns()
    log.turn().say(user("u4", "go on"))
      .summaryRequest("The user said hello.", { inputTokens: 900, outputTokens: 40 })
    const summaryId = `sum-${log.seq - 3}`
    log.compaction("The user said hello.", log.seqOf("u2")).reply(assistant("a5", "going on")).end()
    const messages = History.fromEvents(log.events)
    expect(ids(messages)).toEqual([`compaction-${log.seq - 5}`, "u2", "a2", "t1", "a3", "u3", "a4", "u4", "a5"])
    expect(ids(messages)).not.toContain(summaryId)
    // a summary request whose compaction never got written (it failed, or the process died) is not history either
    const failed = threeTurns().turn().say(user("u4", "go on")).summaryRequest("half a summ")
      .add({ type: "turn/end", data: { reason: "error" } })
    expect(ids(History.fromEvents(failed.events))).toEqual(["u1", "a1", "u2", "a2", "t1", "a3", "u3", "a4", "u4"])
  })

  it("moves a cut that would keep a tool result without its call back to the call", () => {
    const log = threeTurns()
    log.compaction("cut in the middle of a step", log.seqOf("t1"))
    expect(ids(History.fromEvents(log.events))).toEqual([`compaction-${log.seq - 1}`, "a2", "t1", "a3", "u3", "a4"])
  })

  it("keeps every message logged after the compaction, even if firstKeptSeq points past it", () => {
    const log = threeTurns()
    log.compaction("everything", log.seq + 5)
    log.turn().say(user("u4", "next"))
    expect(ids(History.fromEvents(log.events))).toEqual([`compaction-${log.seq - 3}`, "u4"])
  })

  it("view gives the messages after the compaction with the seq of each, without the summary", () => {
    const log = threeTurns()
    log.compaction("s", log.seqOf("u3"))
    const view = History.view(log.events)
    expect(view.compaction?.data.summary).toBe("s")
    expect(ids(view.messages)).toEqual(["u3", "a4"])
    expect(view.seqs).toEqual([log.seqOf("u3"), log.seqOf("a4")])
    const whole = History.view(threeTurns().events)
    expect(whole.compaction).toBeUndefined()
    expect(whole.seqs).toEqual(["u1", "a1", "u2", "a2", "t1", "a3", "u3", "a4"].map((id) => threeTurns().seqOf(id)))
  })
})

type Native = { readonly via: "native" | "foreign"; readonly id: string }

describe("replay/degrade", () => {
  const state = { ok: true }
  const withState = () =>
    new Log()
      .turn().say(user("u1", "hello")).reply(assistant("a1", "hi", [], state)).end()
      .turn().say(user("u2", "again")).reply(assistant("a2", "hi again", [], state)).end()

  it("sends the messages it names without their replay state from then on, before and after a compaction", () => {
    const log = withState().degrade("a1")
    const messages = History.fromEvents(log.events)
    expect(messages[1]).toEqual({
      id: "a1",
      role: "assistant",
      content: [{ type: "text", text: "hi" }],
      source: { kind: "model", provider: "acme", model: "m1" },
    })
    // every other message keeps its state as stored
    expect(messages[3]!.source).toEqual({ kind: "model", provider: "acme", model: "m1", replayState: state })
    // a compaction after the repair does not bring the state back
    log.compaction("s", log.seqOf("u1"))
    expect(History.fromEvents(log.events)[2]!.source).toEqual({ kind: "model", provider: "acme", model: "m1" })
  })

  it.effect("a session's reconstructor sends a degraded message provider-neutral, with no INVALID_REPLAY_STATE diagnostic", () =>
    Effect.gen(function*() {
      const decoded: Array<string> = []
      const codec: ReplayCodec<Native> = {
        kind: "toy",
        decode: (m) => {
          decoded.push(m.id)
          return Exit.succeed({ via: "native", id: m.id })
        },
        foreign: (m) => ({ via: "foreign", id: m.id }),
      }
      const seen: Array<ReplayDiagnostic> = []
      const options: History.ReconstructOptions = {
        targetRoute: "acme/m1",
        report: (ds) => Effect.sync(() => void seen.push(...ds)),
      }
      const reconstructor = History.makeReconstructor(codec)
      const log = withState()
      const before = yield* reconstructor.all(History.fromEvents(log.events), options)
      expect(before.map((n) => `${n.via}:${n.id}`)).toEqual(["native:a1", "native:a2"])
      log.degrade("a1")
      const after = yield* reconstructor.all(History.fromEvents(log.events), options)
      expect(after.map((n) => `${n.via}:${n.id}`)).toEqual(["foreign:a1", "native:a2"])
      expect(decoded).toEqual(["a1", "a2"])
      expect(seen).toEqual([])
      expect(reconstructor.size()).toBe(2)
    }))

  it.effect("reports INVALID_REPLAY_STATE only for state this build cannot decode, never for a message a provider refused", () =>
    Effect.gen(function*() {
      const codec: ReplayCodec<Native> = {
        kind: "toy",
        decode: (m) => InvalidReplayState.fail(`cannot decode ${m.id}`),
        foreign: (m) => ({ via: "foreign", id: m.id }),
      }
      const seen: Array<ReplayDiagnostic> = []
      const options: History.ReconstructOptions = {
        targetRoute: "acme/m1",
        report: (ds) => Effect.sync(() => void seen.push(...ds)),
      }
      const natives = yield* History.reconstruct(History.fromEvents(withState().degrade("a2").events), codec, options)
      expect(natives.map((n) => `${n.via}:${n.id}`)).toEqual(["foreign:a1", "foreign:a2"])
      expect(seen).toEqual([{
        code: "INVALID_REPLAY_STATE",
        messageId: "a1",
        historicalRoute: "acme/m1",
        targetRoute: "acme/m1",
        reason: "cannot decode a1",
      }])
    }))
})
