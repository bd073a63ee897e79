/**
 * Assembler benchmark: the reducer's cost per chunk (`step` for every chunk,
 * then `finish`) beside two floors measured in the same process, and the
 * ratio to each: the reference loop — plain JS with per-index `+=`
 * concatenation and block objects, making no decisions — and the tight loop,
 * which only appends each delta's text to a string per index (no block
 * objects, no usage, no finish): the least any assembler must do.
 *
 * Each workload runs in fresh child processes (this file re-invoked with the
 * workload's name), so no workload's type feedback or heap shapes the next
 * one's code; it runs in three of them, one after another, and the figures
 * printed are those of the process with the median ratio (what the engine
 * decides for one process — inlining, heap layout — moves a ratio by several
 * per cent from one process to the next). Within a child, after a warm-up, reference and subject alternate
 * in pairs of rounds (reference, subject, subject, reference: whichever side
 * pays for running second does so equally), each round over the whole
 * workload after a full collection. A round is wall time with collection on
 * the measuring thread (`--single-threaded-gc`): CPU time would also count the
 * engine's background compiler and parallel GC threads, and parallel
 * scavenges stall on helpers waiting for a core of a shared machine. Figures
 * are the medians over the pairs, and the ratio is the median of the per-pair
 * ratios (each compares neighbouring measurements, so a slow stretch of the
 * machine disturbs both).
 *
 * Workloads: (a1) one response of 100,000 text deltas with block framing;
 * (a2) 10,000 responses of 30 chunks (reasoning, text, a tool call with 5
 * argument deltas, usage, a finish with a 3-entry envelope); (a3) a2 finishing
 * `max-tokens`, which drops the tool calls and prunes the envelopes. Before
 * timing, the subject's blocks are checked against the reference's (a3: with
 * the tool calls left out), so both loops are known to do the same work.
 * Targets: ratio to the reference ≤ 1.3 on a1, ≤ 1.15 on a2 and a3, and to the
 * tight loop ≤ 1.3 on a1 (printed `ok` or `OVER`;
 * timing never fails the run). Last, `finish` is called twice on the same
 * states: the second call must return the same object, without assembling.
 *
 * Run: `npm run bench` or `node --expose-gc --import tsx packages/assembler/bench/assembler.bench.ts`
 * (one workload alone: append its name, e.g. `a2`, and `--single-threaded-gc`; its figures
 * are printed as JSON, and with BENCH_DEBUG=1 every pair's figures on stderr).
 */
import { Assembler } from "@turnlog/assembler"
import type { AssistantBlock, FinishReason, StreamChunk } from "@turnlog/protocol"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { isDeepStrictEqual } from "node:util"

const gc: () => void = (globalThis as { gc?: () => void }).gc ?? (() => {})
const WARMUP = 5
const PAIRS = 15
/** Processes per workload: what the engine decides for one process moves its ratio by several per cent. */
const PROCESSES = 3

// ---------------------------------------------------------------- workloads

const a1 = (): ReadonlyArray<ReadonlyArray<StreamChunk>> => {
  const chunks: Array<StreamChunk> = [{ type: "block-start", index: 0, blockType: "text" }]
  let text = ""
  for (let i = 0; i < 100_000; i++) {
    const delta = `w${i % 97} `
    text += delta
    chunks.push({ type: "text-delta", index: 0, text: delta })
  }
  chunks.push({ type: "block-end", index: 0, block: { type: "text", text } })
  chunks.push({ type: "finish", reason: { kind: "stop" } })
  return [chunks]
}

const response = (n: number, reason: FinishReason): ReadonlyArray<StreamChunk> => {
  const chunks: Array<StreamChunk> = [{ type: "block-start", index: 0, blockType: "reasoning" }]
  let thought = ""
  for (let i = 0; i < 7; i++) {
    const delta = `think ${n}.${i} `
    thought += delta
    chunks.push({ type: "reasoning-delta", index: 0, text: delta })
  }
  chunks.push({ type: "block-end", index: 0, block: { type: "reasoning", text: thought } })
  chunks.push({ type: "block-start", index: 1, blockType: "text" })
  let text = ""
  for (let i = 0; i < 10; i++) {
    const delta = `say ${n}.${i} `
    text += delta
    chunks.push({ type: "text-delta", index: 1, text: delta })
  }
  chunks.push({ type: "block-end", index: 1, block: { type: "text", text } })
  chunks.push({ type: "block-start", index: 2, blockType: "tool-call" })
  const id = `toolu_${n}`
  const parts = ['{"path":', '"src/', `f${n}`, '.ts"', "}"]
  for (let i = 0; i < parts.length; i++) {
    chunks.push(
      i === 0
        ? { type: "tool-call-delta", index: 2, id, name: "read", argumentsDelta: parts[i]! }
        : { type: "tool-call-delta", index: 2, id, argumentsDelta: parts[i]! },
    )
  }
  chunks.push({ type: "block-end", index: 2, block: { type: "tool-call", id, name: "read", arguments: parts.join("") } })
  chunks.push({ type: "usage", usage: { inputTokens: 1200 + n, outputTokens: 80 } })
  chunks.push({
    type: "finish",
    reason,
    replayState: {
      response: { kind: "pi-ai", version: 2, responseId: `msg_${n}` },
      blocks: [{ type: "reasoning", thinkingSignature: `sig${n}` }, { type: "text" }, { type: "tool-call" }],
    },
  })
  return chunks
}

const a2 = () => Array.from({ length: 10_000 }, (_, n) => response(n, { kind: "tool-calls" }))
const a3 = () => Array.from({ length: 10_000 }, (_, n) => response(n, { kind: "max-tokens" }))

// ---------------------------------------------------------------- the two loops

interface RefBlock {
  type: string
  text: string
}

/** Plain JS: per-index `+=` into block objects, last usage and finish kept, no decisions. */
const reference = (chunks: ReadonlyArray<StreamChunk>) => {
  const blocks: Array<RefBlock | AssistantBlock> = []
  let usage: unknown
  let finish: unknown
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!
    switch (c.type) {
      case "block-start":
        blocks[c.index] = { type: c.blockType, text: "" }
        break
      case "text-delta":
      case "reasoning-delta":
        ;(blocks[c.index] as RefBlock).text += c.text
        break
      case "tool-call-delta":
        ;(blocks[c.index] as RefBlock).text += c.argumentsDelta
        break
      case "block-end":
        blocks[c.index] = c.block
        break
      case "usage":
        usage = c.usage
        break
      case "finish":
        finish = c
        break
    }
  }
  return { blocks, usage, finish }
}

/** The least an assembler does: each delta's text appended to its index's string. */
const tight = (chunks: ReadonlyArray<StreamChunk>) => {
  const blocks: Array<string> = []
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!
    if (c.type === "text-delta" || c.type === "reasoning-delta") blocks[c.index] = (blocks[c.index] ?? "") + c.text
    else if (c.type === "tool-call-delta") blocks[c.index] = (blocks[c.index] ?? "") + c.argumentsDelta
  }
  return { blocks }
}

const implementation = (chunks: ReadonlyArray<StreamChunk>) => {
  let state = Assembler.initial
  for (let i = 0; i < chunks.length; i++) state = Assembler.step(state, chunks[i]!)
  return Assembler.finish(state)
}

// ---------------------------------------------------------------- measurement

type Responses = ReadonlyArray<ReadonlyArray<StreamChunk>>
type Loop = (chunks: ReadonlyArray<StreamChunk>) => { readonly blocks: ReadonlyArray<unknown> }

let sink = 0

/** Wall time in ns of `run` over every response, after a full collection (so no round pays for another's garbage). */
const time = (responses: Responses, run: Loop): number => {
  gc()
  const start = process.hrtime.bigint()
  for (let r = 0; r < responses.length; r++) sink += run(responses[r]!).blocks.length
  return Number(process.hrtime.bigint() - start)
}

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

interface Figures {
  readonly chunks: number
  readonly implementation: number
  readonly reference: number
  readonly ratio: number
  readonly tight: number
  readonly tightRatio: number
}

/** The subject must produce the reference's blocks, less the tool calls when it drops them. */
const check = (responses: Responses, dropsToolCalls: boolean): void => {
  for (const chunks of responses) {
    const expected = reference(chunks).blocks.filter((b) => !dropsToolCalls || b.type !== "tool-call")
    if (!isDeepStrictEqual(implementation(chunks).blocks, expected)) {
      throw new Error("the implementation's blocks differ from the reference's")
    }
  }
}

const compare = (responses: Responses, dropsToolCalls: boolean): Figures => {
  check(responses, dropsToolCalls)
  const chunks = responses.reduce((n, r) => n + r.length, 0)
  const impl: Array<number> = []
  const ref: Array<number> = []
  const floor: Array<number> = []
  const ratios: Array<number> = []
  const tightRatios: Array<number> = []
  for (let pair = 0; pair < WARMUP + PAIRS; pair++) {
    const r1 = time(responses, reference)
    const t1 = time(responses, tight)
    const s1 = time(responses, implementation)
    const s2 = time(responses, implementation)
    const t2 = time(responses, tight)
    const r2 = time(responses, reference)
    if (pair < WARMUP) continue
    impl.push((s1 + s2) / 2 / chunks)
    ref.push((r1 + r2) / 2 / chunks)
    floor.push((t1 + t2) / 2 / chunks)
    ratios.push((s1 + s2) / (r1 + r2))
    tightRatios.push((s1 + s2) / (t1 + t2))
  }
  if (process.env["BENCH_DEBUG"]) {
    console.error(ratios.map((x) => x.toFixed(2)).join(" "))
    console.error(impl.map((x) => x.toFixed(1)).join(" "))
    console.error(ref.map((x) => x.toFixed(1)).join(" "))
  }
  return {
    chunks,
    implementation: median(impl),
    reference: median(ref),
    ratio: median(ratios),
    tight: median(floor),
    tightRatio: median(tightRatios),
  }
}

interface FinishFigures {
  readonly first: number
  readonly second: number
  readonly same: boolean
}

/** `finish` twice on the same states: the second call must not assemble again. */
const finishTwice = (responses: Responses): FinishFigures => {
  const firsts: Array<number> = []
  const seconds: Array<number> = []
  let same = true
  for (let round = 0; round < 5; round++) {
    const states = responses.map((chunks) => chunks.reduce(Assembler.step, Assembler.initial))
    gc()
    let t0 = process.hrtime.bigint()
    const once = states.map(Assembler.finish)
    firsts.push(Number(process.hrtime.bigint() - t0) / states.length)
    t0 = process.hrtime.bigint()
    const twice = states.map(Assembler.finish)
    seconds.push(Number(process.hrtime.bigint() - t0) / states.length)
    same &&= once.every((result, i) => result === twice[i])
  }
  return { first: median(firsts), second: median(seconds), same }
}

// ---------------------------------------------------------------- one workload per process

const workloads: Record<string, () => Figures | FinishFigures> = {
  a1: () => compare(a1(), false),
  a2: () => compare(a2(), false),
  a3: () => compare(a3(), true),
  finish: () => finishTwice(a2()),
}

const child = (name: string): Figures | FinishFigures => {
  // Collection on the measuring thread only: parallel scavenger threads on a
  // shared two-core machine stall the main thread for as long as the slowest
  // helper waits for a core, the main source of round-to-round spread.
  const args = [...process.execArgv, "--single-threaded-gc", fileURLToPath(import.meta.url), name]
  const run = spawnSync(process.execPath, args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
  if (run.status !== 0) throw new Error(`workload ${name} failed (exit ${run.status})`)
  return JSON.parse(run.stdout.trim().split("\n").pop()!) as Figures | FinishFigures
}

const fmt = (x: number, digits = 1) => x.toFixed(digits).padStart(7)

const only = process.argv[2]
if (only !== undefined) {
  const workload = workloads[only]
  if (workload === undefined) throw new Error(`unknown workload ${only}; one of ${Object.keys(workloads).join(", ")}`)
  console.log(JSON.stringify(workload()))
  if (sink < 0) console.log(sink)
} else {
  const started = Date.now()
  const targets: ReadonlyArray<readonly [string, number, number | undefined]> = [["a1", 1.3, 1.3], ["a2", 1.15, undefined], ["a3", 1.15, undefined]]
  const verdict = (ratio: number, target: number | undefined) =>
    target === undefined ? "(no target)" : `(target <= ${target}) ${ratio <= target ? "ok" : "OVER"}`
  for (const [name, target, tightTarget] of targets) {
    const runs = Array.from({ length: PROCESSES }, () => child(name) as Figures).sort((a, b) => a.ratio - b.ratio)
    const f = runs[runs.length >> 1]!
    console.log(
      `${name}  ${String(f.chunks).padStart(6)} chunks  implementation ${fmt(f.implementation)} ns/chunk` +
        `  reference ${fmt(f.reference)} ns/chunk  ratio ${fmt(f.ratio, 3)}  ${verdict(f.ratio, target)}` +
        `  tight ${fmt(f.tight)} ns/chunk  ratio ${fmt(f.tightRatio, 3)}  ${verdict(f.tightRatio, tightTarget)}`,
    )
  }
  const { first, second, same } = child("finish") as FinishFigures
  console.log(
    `finish twice (a2 states)  first call ${fmt(first)} ns  second call ${fmt(second)} ns` +
      `  same result object: ${same ? "yes" : "NO"}`,
  )
  console.log(
    `(${((Date.now() - started) / 1000).toFixed(1)} s, wall time, ${WARMUP} warm-up + ${PAIRS} alternating pairs of rounds ` +
      `per process, medians; the median of ${PROCESSES} processes per workload)`,
  )
  // Timing depends on the machine and what else it runs; only a second
  // assembly (a broken memo) fails the run.
  process.exitCode = same ? 0 : 1
}
