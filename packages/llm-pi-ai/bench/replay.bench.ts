/**
 * Read-side benchmark: reconstructing durable history into pi-ai messages
 * through the pi-ai codec and the history reconstructor, beside a reference
 * measured in the same process — a plain map building the same native objects
 * straight from content and state, with no validation, no Effect and no
 * recovery (checked deep-equal to the subject's output before timing) — and
 * the ratio of the two.
 *
 * Each workload runs in a fresh child process (this file re-invoked with the
 * workload's name), so no workload's type feedback or heap shapes the next
 * one's code. Within a child, after a warm-up, reference and subject alternate
 * in pairs of rounds (reference, subject, subject, reference: whichever side
 * pays for running second does so equally), each round after a full
 * collection. A round is wall time with collection on the measuring thread
 * (`--single-threaded-gc`): CPU time would also count the engine's background
 * compiler and parallel GC threads, and parallel scavenges stall on helpers
 * waiting for a core of a shared machine. Figures are the medians over the
 * pairs, and the ratio is the median of the per-pair ratios (each compares
 * neighbouring measurements, so a slow stretch of the machine disturbs both).
 *
 * Workloads (10,000 assistant messages: text; reasoning + text; reasoning +
 * text + a tool call, in turn):
 *   valid   every message carries a usable version-2 state → native messages
 *   legacy  every message carries the flat version-1 state → degraded (neutral)
 *   mixed   the two alternating
 *   foreign every message carries an ai-sdk version-1 state → degraded (neutral),
 *           the session moved from the AI SDK adapter
 *   moved   valid and foreign alternating
 * (packages/llm-ai-sdk/bench/replay.bench.ts runs valid, foreign, moved and
 * session here beside its own, in one run.)
 * The "codec" rows time the codec's recovered synchronous form alone
 * (`toPiAssistant`), to tell its share from the reconstructor's (memo,
 * recovery, reporting through the diagnostics hook).
 * Growing session: the cost of one request's reconstruction at step 100 and
 * step 1,000 of one session grown request by request (each step adds a user
 * and an assistant message) through one session memo, as the adapter runs it.
 *
 * Targets: ratio ≤ 1.3 on valid, ≤ 2 on legacy and mixed, step 1,000 / step 100 ≈ 1.
 *
 * Run: `npm run bench` or `node --expose-gc --import tsx packages/llm-pi-ai/bench/replay.bench.ts`
 * (one workload alone: append its name, e.g. `valid`, and `--single-threaded-gc`; its figures
 * are printed as JSON, and with BENCH_DEBUG=1 every pair's figures on stderr).
 */
import type { AssistantMessage, StopReason, ToolCall } from "@earendil-works/pi-ai"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { isDeepStrictEqual } from "node:util"
import { Effect } from "effect"
import { History } from "@turnlog/history"
import { type AssistantBlock, type Message, MessageId } from "@turnlog/protocol"
import { PiAiReplay } from "@turnlog/llm-pi-ai"
import { zeroUsage } from "../src/internal/Native.js"
import * as SessionHistory from "@turnlog/history/SessionHistory"

const gc: () => void = (globalThis as { gc?: () => void }).gc ?? (() => {})
const N = 10_000
const WARMUP = 5
const ROUNDS = 21

// ---------------------------------------------------------------- workloads

const content = (n: number): Array<AssistantBlock> => {
  const text: AssistantBlock = { type: "text", text: `Answer ${n}: the file has ${n % 97} lines.` }
  const reasoning: AssistantBlock = { type: "reasoning", text: `Step ${n}: look at the file before answering.` }
  const call: AssistantBlock = { type: "tool-call", id: `toolu_${n}`, name: "read", arguments: `{"path":"src/f${n}.ts","limit":${n % 50}}` }
  return n % 3 === 0 ? [text] : n % 3 === 1 ? [reasoning, text] : [reasoning, text, call]
}

const entry = (block: AssistantBlock, n: number) =>
  block.type === "reasoning" ? { type: "reasoning", thinkingSignature: `EqQBCkgIBRgCIkD${n}sig` } : { type: block.type }

const stopOf = (blocks: ReadonlyArray<AssistantBlock>): StopReason => blocks.some((b) => b.type === "tool-call") ? "toolUse" : "stop"

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

/** The state the AI SDK adapter writes for the same answer. */
const foreign = (n: number): Message => {
  const blocks = content(n)
  return message(n, {
    response: { kind: "ai-sdk", version: 1, provider: "anthropic", model: "claude-x", sdkProvider: "anthropic.messages", responseId: `msg_01${n}` },
    blocks: blocks.map((b) =>
      b.type === "reasoning" ? { type: "reasoning", providerMetadata: { anthropic: { signature: `EqQBCkgIBRgCIkD${n}sig` } } } : { type: b.type }
    ),
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
const usage = zeroUsage

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

/** Degrades: the flat version-1 form (no response) or another adapter's kind. */
const degrades = (m: Message) => (m.source as { replayState: any }).replayState.response?.kind !== "pi-ai"

const reference = (messages: ReadonlyArray<Message>): Array<AssistantMessage> => messages.map((m) => (degrades(m) ? referenceForeign(m) : referenceNative(m)))

// ---------------------------------------------------------------- subject

const options: History.ReconstructOptions = { targetRoute: "anthropic/claude-x", report: () => Effect.void }
const reconstruct = (messages: ReadonlyArray<Message>): Array<AssistantMessage> => Effect.runSync(History.reconstruct(messages, PiAiReplay.codec, options))

/** The codec's own share: its recovered synchronous form, without the reconstructor's memo and reporting. */
const codecOnly = (messages: ReadonlyArray<Message>): Array<AssistantMessage> => messages.map((m) => PiAiReplay.toPiAssistant(m))

// ---------------------------------------------------------------- measurement

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Wall time of `f` in nanoseconds, after a full collection (so no round pays for another's garbage). */
const time = (f: () => unknown): number => {
  gc()
  const start = process.hrtime.bigint()
  f()
  return Number(process.hrtime.bigint() - start)
}

let sink = 0

interface Figures {
  readonly subject: number
  readonly reference: number
  readonly ratio: number
}

const compare = (
  messages: ReadonlyArray<Message>,
  subject: (messages: ReadonlyArray<Message>) => Array<AssistantMessage>,
): Figures => {
  const expected = reference(messages)
  if (!isDeepStrictEqual(subject(messages), expected)) throw new Error("the subject's output differs from the reference's")
  // One sample per pair of rounds: reference then subject, then subject then
  // reference, so whichever side pays for running second does so equally.
  const ref: Array<number> = []
  const sub: Array<number> = []
  const ratios: Array<number> = []
  for (let pair = 0; pair < WARMUP + ROUNDS; pair++) {
    const r1 = time(() => (sink += reference(messages).length))
    const s1 = time(() => (sink += subject(messages).length))
    const s2 = time(() => (sink += subject(messages).length))
    const r2 = time(() => (sink += reference(messages).length))
    if (pair >= WARMUP) {
      ref.push((r1 + r2) / 2)
      sub.push((s1 + s2) / 2)
      ratios.push((s1 + s2) / (r1 + r2))
    }
  }
  if (process.env["BENCH_DEBUG"]) {
    console.error(ratios.map((x) => x.toFixed(2)).join(" "))
    console.error(sub.map((x) => (x / messages.length).toFixed(0)).join(" "))
    console.error(ref.map((x) => (x / messages.length).toFixed(0)).join(" "))
  }
  return { subject: median(sub) / messages.length, reference: median(ref) / messages.length, ratio: median(ratios) }
}

// ---------------------------------------------------------------- growing session

const userAt = (step: number): Message => ({
  id: MessageId.make(`user_${step}`),
  role: "user",
  content: [{ type: "text", text: `question ${step}` }],
  source: { kind: "user" },
})
/** Requests timed around each of the two steps: the median of a window, not one request, is the step's figure. */
const WINDOW = 21
const STEPS = 1_000 + WINDOW

interface SessionFigures {
  readonly at100: number
  readonly at1000: number
}

/**
 * One session grown request by request, as the adapter sees it: each step adds
 * a user and an assistant message, and the request is built from the whole
 * history so far through one session memo. Only the reconstruction is timed;
 * the figure of a step is the median over the requests of a window centred on
 * it (so a request that happens to grow an array counts as what it is, one of
 * many), and each figure is the median over several sessions.
 */
const growingSession = (): SessionFigures => {
  const session = Array.from({ length: STEPS }, (_, step) => [userAt(step), valid(step)]).flat()
  const near = (at: number, step: number) => Math.abs(step - at) <= WINDOW >> 1
  const at100: Array<number> = []
  const at1000: Array<number> = []
  for (let round = 0; round < 2 + 9; round++) {
    const memo = SessionHistory.make(PiAiReplay.codec)
    const around100: Array<number> = []
    const around1000: Array<number> = []
    for (let step = 1; step <= STEPS; step++) {
      const messages = session.slice(0, step * 2)
      const start = process.hrtime.bigint()
      // Revision 0: no degrade in this session's log, as the loop tells the adapter.
      sink += Effect.runSync(memo.reconstruct(messages, options, 0)).length
      const ns = Number(process.hrtime.bigint() - start)
      if (near(100, step)) around100.push(ns)
      if (near(1_000, step)) around1000.push(ns)
    }
    if (round >= 2) {
      at100.push(median(around100))
      at1000.push(median(around1000))
    }
  }
  return { at100: median(at100), at1000: median(at1000) }
}

// ---------------------------------------------------------------- one workload per process

const workloads: Record<string, () => Figures | SessionFigures> = {
  valid: () => compare(Array.from({ length: N }, (_, n) => valid(n)), reconstruct),
  legacy: () => compare(Array.from({ length: N }, (_, n) => legacy(n)), reconstruct),
  mixed: () => compare(Array.from({ length: N }, (_, n) => (n % 2 === 0 ? valid(n) : legacy(n))), reconstruct),
  foreign: () => compare(Array.from({ length: N }, (_, n) => foreign(n)), reconstruct),
  moved: () => compare(Array.from({ length: N }, (_, n) => (n % 2 === 0 ? valid(n) : foreign(n))), reconstruct),
  "valid codec": () => compare(Array.from({ length: N }, (_, n) => valid(n)), codecOnly),
  "legacy codec": () => compare(Array.from({ length: N }, (_, n) => legacy(n)), codecOnly),
  session: growingSession,
}

const child = (name: string): Figures | SessionFigures => {
  // Collection on the measuring thread only: parallel scavenger threads on a
  // shared two-core machine stall the main thread for as long as the slowest
  // helper waits for a core, the main source of round-to-round spread.
  const args = [...process.execArgv, "--single-threaded-gc", fileURLToPath(import.meta.url), name]
  const run = spawnSync(process.execPath, args, {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
  if (run.status !== 0) throw new Error(`workload ${name} failed (exit ${run.status})`)
  return JSON.parse(run.stdout.trim().split("\n").pop()!) as Figures | SessionFigures
}

const only = process.argv[2]
if (only !== undefined) {
  const workload = workloads[only]
  if (workload === undefined) throw new Error(`unknown workload ${only}; one of ${Object.keys(workloads).join(", ")}`)
  const figures = workload()
  console.log(JSON.stringify(figures))
  if (sink < 0) console.log(sink)
} else {
  console.log(
    `reconstructing ${N} assistant messages (wall time, median of ${ROUNDS} alternating pairs of rounds, one process per workload)`,
  )
  const ratios: Record<string, number> = {}
  for (const name of ["valid", "legacy", "mixed", "valid codec", "legacy codec"]) {
    const f = child(name) as Figures
    ratios[name] = f.ratio
    console.log(
      `${name.padEnd(14)} ${f.subject.toFixed(0).padStart(6)} ns/message   reference ${f.reference.toFixed(0).padStart(6)} ns/message   ratio ${
        f.ratio.toFixed(2)
      }`,
    )
  }
  const { at100, at1000 } = child("session") as SessionFigures
  console.log(
    `session  step 100 ${(at100 / 1000).toFixed(1)} µs/request   step 1,000 ${(at1000 / 1000).toFixed(1)} µs/request   ratio ${(at1000 / at100).toFixed(2)}`,
  )
  const verdict = (ok: boolean) => (ok ? "ok" : "MISSED")
  console.log(
    `targets: valid ≤ 1.3 ${verdict(ratios["valid"]! <= 1.3)}, legacy ≤ 2 ${verdict(ratios["legacy"]! <= 2)}, mixed ≤ 2 ${
      verdict(ratios["mixed"]! <= 2)
    }, session flat (≤ 1.5) ${verdict(at1000 / at100 <= 1.5)}`,
  )
}
