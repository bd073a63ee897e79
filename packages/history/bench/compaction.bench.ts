/**
 * Compaction benchmark: the per-request overhead of estimating a request's
 * tokens and deciding whether to compact first (`Compaction.estimate` then
 * `Compaction.decide`), as a ratio against building the request alone
 * (`History.fromEvents`, what the loop does before every request), on a
 * 10,000-turn session as the loop holds it (every event but the raw chunks).
 *
 * Workloads (10,000 turns, every third with a tool step: 26,666 messages):
 *   usage    every response reported usage: the estimate stops at the last one
 *   legacy   no response reported usage (a log of an older build, before its first
 *            response here): the estimate counts every message's characters, once
 *   compacted the same session as `usage` with a compaction 20 turns before its end
 *
 * Both sides are timed in the same process, alternating in pairs of rounds
 * (reference, subject, subject, reference: whichever side pays for running
 * second does so equally), each round after a full collection and repeated
 * until it lasts at least 20 ms (the estimate alone takes microseconds). The
 * figures are medians over the pairs, the ratio the median of the per-pair
 * ratios. Targets: ratio ≤ 0.01 on usage and compacted, ≤ 2 on legacy
 * (printed `ok` or `OVER`; timing never fails the run).
 *
 * Run: `npm run bench` or `node --expose-gc --import tsx packages/history/bench/compaction.bench.ts`
 */
import { Compaction, History } from "@turnlog/history"
import { makeToolResult, type Message, MessageId, SessionLog, type Usage } from "@turnlog/protocol"

const gc: () => void = (globalThis as { gc?: () => void }).gc ?? (() => {})
const TURNS = 10_000
const WARMUP = 3
const PAIRS = 11
const ROUND_MS = 20
const WINDOW = 200_000

const session = (withUsage: boolean, compactAt?: number): Array<SessionLog.SessionEvent> => {
  const inputs: Array<SessionLog.EventInput> = []
  let input = 2000
  const reply = (message: Message, finish: "stop" | "tool-calls") => {
    input += 60
    const usage: Usage = { inputTokens: input, outputTokens: 40, cacheReadTokens: 1000 }
    inputs.push(
      { type: "request/start", data: { provider: "acme", model: "m1" } },
      { type: "assistant/message", data: { message, finish: { kind: finish }, ...(withUsage ? { usage } : {}) } },
    )
  }
  let compactionSeqAt: number | undefined
  for (let t = 0; t < TURNS; t++) {
    if (t === compactAt) compactionSeqAt = inputs.length + 1
    inputs.push({ type: "turn/start", data: {} })
    inputs.push({
      type: "user/message",
      data: {
        message: {
          id: MessageId.make(`u${t}`),
          role: "user",
          content: [{ type: "text", text: `Question ${t}: what does src/f${t % 97}.ts do?` }],
          source: { kind: "user" },
        },
      },
    })
    const model = { kind: "model" as const, provider: "acme", model: "m1" }
    if (t % 3 === 2) {
      const call = `call_${t}`
      reply({
        id: MessageId.make(`a${t}`),
        role: "assistant",
        content: [{ type: "text", text: "Let me read it." }, { type: "tool-call", id: call, name: "read_file", arguments: `{"path":"src/f${t % 97}.ts"}` }],
        source: model,
      }, "tool-calls")
      inputs.push({ type: "tool/call", data: { callId: call, name: "read_file", arguments: "{}" } })
      inputs.push({
        type: "tool/result",
        data: { message: makeToolResult({ id: MessageId.make(`t${t}`), callId: call, content: `export const f${t} = () => ${t}\n`.repeat(8) }) },
      })
    }
    reply({ id: MessageId.make(`b${t}`), role: "assistant", content: [{ type: "text", text: `It exports f${t}, which returns ${t}.` }], source: model }, "stop")
    inputs.push({ type: "turn/end", data: { reason: "completed" } })
  }
  if (compactionSeqAt !== undefined) {
    inputs.push({
      type: "context/compaction",
      data: {
        summary: "The user asked what each file does.",
        firstKeptSeq: compactionSeqAt,
        tokensBefore: 190_000,
        tokensAfter: 9_000,
        provider: "acme",
        model: "m1",
      },
    })
    inputs.push({
      type: "user/message",
      data: { message: { id: MessageId.make("after"), role: "user", content: [{ type: "text", text: "And now?" }], source: { kind: "user" } } },
    })
  }
  return SessionLog.stamp(1, inputs, "2026-12-01T00:00:00.000Z")
}

const settings = Compaction.defaults(WINDOW)
const options = { fixedTokens: 1500, toolResultLimitChars: Compaction.toolResultLimitChars(WINDOW, settings) }

let sink = 0
const reference = (events: ReadonlyArray<SessionLog.SessionEvent>) => {
  sink += History.fromEvents(events).length
}
const subject = (events: ReadonlyArray<SessionLog.SessionEvent>) => {
  const estimate = Compaction.estimate(events, options)
  sink += Compaction.decide(estimate.tokens, WINDOW, settings).answerBudget
}

/** Milliseconds per call of `f`, over a round of at least ROUND_MS. */
const round = (f: () => void): number => {
  gc()
  let n = 0
  const start = performance.now()
  let elapsed: number
  do {
    f()
    n++
    elapsed = performance.now() - start
  } while (elapsed < ROUND_MS)
  return elapsed / n
}

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const workloads = [
  { name: "usage", events: session(true), target: 0.01, basis: "usage" },
  { name: "legacy", events: session(false), target: 2, basis: "chars" },
  { name: "compacted", events: session(true, TURNS - 20), target: 0.01, basis: "compaction" },
] as const

console.log("workload    messages  build request (ms)  estimate+decide (ms)  ratio    target")
for (const w of workloads) {
  const estimate = Compaction.estimate(w.events, options)
  if (estimate.basis !== w.basis) throw new Error(`${w.name}: estimate on the ${estimate.basis} basis, expected ${w.basis}`)
  const messages = History.fromEvents(w.events).length
  const ref = () => reference(w.events)
  const sub = () => subject(w.events)
  for (let i = 0; i < WARMUP; i++) {
    round(ref)
    round(sub)
  }
  const refs: Array<number> = []
  const subs: Array<number> = []
  const ratios: Array<number> = []
  for (let i = 0; i < PAIRS; i++) {
    const first = i % 2 === 0
    const r1 = first ? round(ref) : 0
    const s1 = round(sub)
    const r2 = first ? 0 : round(ref)
    const r = first ? r1 : r2
    refs.push(r)
    subs.push(s1)
    ratios.push(s1 / r)
  }
  const ratio = median(ratios)
  console.log(
    `${w.name.padEnd(11)} ${String(messages).padStart(8)}  ${median(refs).toFixed(3).padStart(18)}  ${median(subs).toFixed(5).padStart(20)}  ${
      ratio.toFixed(5)
    }  ≤ ${w.target} ${ratio <= w.target ? "ok" : "OVER"}`,
  )
}
if (sink === 0) console.log("(nothing computed)")
