/**
 * Read-side benchmark: reconstructing durable history into pi-ai messages
 * through the pi-ai codec and the history reconstructor, beside a reference
 * measured in the same run — a plain map building the same native objects
 * straight from content and state, with no validation, no Effect and no
 * recovery — and the ratio of the two. Both run over the same pre-built
 * messages, alternating, after a warm-up; times are this process's CPU time
 * and the figures are the best round of each (the least disturbed one: CI
 * shares its two cores with other work).
 *
 * Workloads (10,000 assistant messages: text; reasoning + text; reasoning +
 * text + a tool call, in turn):
 *   valid   every message carries a usable version-2 state → native messages
 *   legacy  every message carries the flat version-1 state → degraded (neutral)
 *   mixed   the two alternating
 * The "codec" rows time the codec's recovered synchronous form alone
 * (`toPiAssistant`), to tell its share from the reconstructor's (memo,
 * recovery, reporting through the diagnostics hook).
 * Growing session: the cost of one request's reconstruction at step 100 and
 * step 1,000 of a session (each step adds a user and an assistant message),
 * with the session's memo warmed by the earlier steps, as the adapter runs it.
 *
 * Targets: ratio ≤ 1.3 on valid, ≤ 2 on legacy, step 1,000 / step 100 ≈ 1.
 *
 * Run: `npm run bench` or `node --expose-gc --import tsx packages/llm-pi-ai/bench/replay.bench.ts`.
 */
import type { AssistantMessage, StopReason, ToolCall } from "@earendil-works/pi-ai"
import { Effect } from "effect"
import { History } from "@turnlog/history"
import { type AssistantBlock, type Message, MessageId } from "@turnlog/protocol"
import { PiAiReplay } from "@turnlog/llm-pi-ai"
import * as SessionHistory from "../src/internal/SessionHistory.js"

const gc: () => void = (globalThis as { gc?: () => void }).gc ?? (() => {})
const N = 10_000
const WARMUP = 5
const ROUNDS = 41

// ---------------------------------------------------------------- workloads

const content = (n: number): Array<AssistantBlock> => {
  const text: AssistantBlock = { type: "text", text: `Answer ${n}: the file has ${n % 97} lines.` }
  const reasoning: AssistantBlock = { type: "reasoning", text: `Step ${n}: look at the file before answering.` }
  const call: AssistantBlock = { type: "tool-call", id: `toolu_${n}`, name: "read", arguments: `{"path":"src/f${n}.ts","limit":${n % 50}}` }
  return n % 3 === 0 ? [text] : n % 3 === 1 ? [reasoning, text] : [reasoning, text, call]
}

const entry = (block: AssistantBlock, n: number) =>
  block.type === "reasoning" ? { type: "reasoning", thinkingSignature: `EqQBCkgIBRgCIkD${n}sig` } : { type: block.type }

const stopOf = (blocks: ReadonlyArray<AssistantBlock>): StopReason =>
  blocks.some((b) => b.type === "tool-call") ? "toolUse" : "stop"

const message = (n: number, state: unknown, blocks: Array<AssistantBlock>): Message => ({
  id: MessageId.make(`msg_${n}`),
  role: "assistant",
  content: blocks,
  source: { kind: "model", provider: "anthropic", model: "claude-x", replayState: state },
})

const valid = (n: number): Message => {
  const blocks = content(n)
  return message(n, {
    response: {
      kind: "pi-ai",
      version: 2,
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-x",
      responseId: `msg_01${n}`,
      stopReason: stopOf(blocks),
    },
    blocks: blocks.map((b) => entry(b, n)),
  }, blocks)
}

const legacy = (n: number): Message => {
  const blocks = content(n)
  return message(n, {
    kind: "pi-ai",
    version: 1,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-x",
    stopReason: stopOf(blocks),
    blocks: blocks.map((b) => entry(b, n)),
  }, blocks)
}

// ---------------------------------------------------------------- reference: a plain map, no checks

const args = (text: string): ToolCall["arguments"] => {
  try {
    return JSON.parse(text) as ToolCall["arguments"]
  } catch {
    return {}
  }
}
const usage = () => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
})

const referenceNative = (m: Message): AssistantMessage => {
  const state = (m.source as { replayState: any }).replayState
  const r = state.response
  const entries = state.blocks
  return {
    role: "assistant",
    content: m.content.map((b, i) =>
      b.type === "text"
        ? { type: "text", text: b.text }
        : b.type === "reasoning"
        ? { type: "thinking", thinking: b.text, thinkingSignature: entries[i].thinkingSignature }
        : { type: "toolCall", id: (b as any).id, name: (b as any).name, arguments: args((b as any).arguments) }
    ),
    api: r.api,
    provider: r.provider,
    model: r.model,
    responseId: r.responseId,
    usage: usage(),
    stopReason: r.stopReason,
    timestamp: 0,
  }
}

const referenceForeign = (m: Message): AssistantMessage => ({
  role: "assistant",
  content: m.content.map((b) =>
    b.type === "text"
      ? { type: "text", text: b.text }
      : b.type === "reasoning"
      ? { type: "thinking", thinking: b.text }
      : { type: "toolCall", id: (b as any).id, name: (b as any).name, arguments: args((b as any).arguments) }
  ),
  api: "turnlog-foreign",
  provider: "anthropic",
  model: "claude-x",
  usage: usage(),
  stopReason: m.content.some((b) => b.type === "tool-call") ? "toolUse" : "stop",
  timestamp: 0,
})

const isLegacy = (m: Message) => (m.source as { replayState: any }).replayState.version === 1

const reference = (messages: ReadonlyArray<Message>): Array<AssistantMessage> =>
  messages.map((m) => (isLegacy(m) ? referenceForeign(m) : referenceNative(m)))

// ---------------------------------------------------------------- subject

const options: History.ReconstructOptions = { targetRoute: "anthropic/claude-x", report: () => Effect.void }
const reconstruct = (messages: ReadonlyArray<Message>): Array<AssistantMessage> =>
  Effect.runSync(History.reconstruct(messages, PiAiReplay.codec, options))

/** The codec's own share: its recovered synchronous form, without the reconstructor's memo and reporting. */
const codecOnly = (messages: ReadonlyArray<Message>): Array<AssistantMessage> =>
  messages.map((m) => PiAiReplay.toPiAssistant(m))

// ---------------------------------------------------------------- measurement

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const best = (xs: ReadonlyArray<number>) => Math.min(...xs)

/** This process's CPU time of `f`, in nanoseconds (time spent waiting for a core does not count). */
const time = (f: () => unknown): number => {
  gc()
  const start = process.cpuUsage()
  f()
  const used = process.cpuUsage(start)
  return (used.user + used.system) * 1000
}

let sink = 0
const compare = (
  name: string,
  messages: ReadonlyArray<Message>,
  check: (out: Array<AssistantMessage>) => void,
  subject: (messages: ReadonlyArray<Message>) => Array<AssistantMessage> = reconstruct,
) => {
  check(subject(messages))
  const ref: Array<number> = []
  const sub: Array<number> = []
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const r = time(() => (sink += reference(messages).length))
    const s = time(() => (sink += subject(messages).length))
    if (round >= WARMUP) {
      ref.push(r)
      sub.push(s)
    }
  }
  const perRef = best(ref) / messages.length
  const perSub = best(sub) / messages.length
  console.log(
    `${name.padEnd(14)} ${perSub.toFixed(0).padStart(6)} ns/message   reference ${perRef.toFixed(0).padStart(6)} ns/message   ratio ${
      (perSub / perRef).toFixed(2)
    }`,
  )
  return perSub / perRef
}

const expectApis = (expected: (i: number) => string) => (out: Array<AssistantMessage>) => {
  out.forEach((m, i) => {
    if (m.api !== expected(i)) throw new Error(`message ${i}: api ${m.api}, expected ${expected(i)}`)
  })
}

console.log(`reconstructing ${N} assistant messages (CPU time, best of ${ROUNDS} rounds)`)
const valids = Array.from({ length: N }, (_, n) => valid(n))
const legacies = Array.from({ length: N }, (_, n) => legacy(n))
const mixed = Array.from({ length: N }, (_, n) => (n % 2 === 0 ? valid(n) : legacy(n)))
const allNative = expectApis(() => "anthropic-messages")
const allForeign = expectApis(() => "turnlog-foreign")
const alternating = expectApis((i) => (i % 2 === 0 ? "anthropic-messages" : "turnlog-foreign"))
const validRatio = compare("valid", valids, allNative)
const legacyRatio = compare("legacy", legacies, allForeign)
const mixedRatio = compare("mixed", mixed, alternating)
compare("valid codec", valids, allNative, codecOnly)
compare("legacy codec", legacies, allForeign, codecOnly)

// ---------------------------------------------------------------- growing session

const userAt = (step: number): Message => ({
  id: MessageId.make(`user_${step}`),
  role: "user",
  content: [{ type: "text", text: `question ${step}` }],
  source: { kind: "user" },
})
const session = Array.from({ length: 1_000 }, (_, step) => [userAt(step), valid(step)]).flat()
const upTo = (step: number) => session.slice(0, step * 2)
const SAMPLES = 201

/** One request's reconstruction at `step`, the session memo warmed by the requests before it. */
const perRequest = (step: number): number => {
  const samples: Array<number> = []
  const before = upTo(step - 1)
  const now = upTo(step)
  for (let i = 0; i < SAMPLES; i++) {
    const memo = SessionHistory.make(PiAiReplay.codec)
    Effect.runSync(memo.reconstruct(before, options))
    const start = process.hrtime.bigint()
    sink += Effect.runSync(memo.reconstruct(now, options)).length
    // Wall time: one request is microseconds, below the CPU clock's resolution.
    samples.push(Number(process.hrtime.bigint() - start))
  }
  return median(samples)
}

perRequest(100)
perRequest(1_000)
const at100 = perRequest(100)
const at1000 = perRequest(1_000)
console.log(
  `session  step 100 ${(at100 / 1000).toFixed(1)} µs/request   step 1,000 ${(at1000 / 1000).toFixed(1)} µs/request   ratio ${
    (at1000 / at100).toFixed(2)
  }`,
)

const verdict = (ok: boolean) => (ok ? "ok" : "MISSED")
console.log(
  `targets: valid ≤ 1.3 ${verdict(validRatio <= 1.3)}, legacy ≤ 2 ${verdict(legacyRatio <= 2)}, mixed ≤ 2 ${
    verdict(mixedRatio <= 2)
  }, session flat (≤ 1.5) ${verdict(at1000 / at100 <= 1.5)}`,
)
if (sink < 0) console.log(sink)
