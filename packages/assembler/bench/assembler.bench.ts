/**
 * Assembler benchmark: the reducer's cost per chunk (`step` for every chunk,
 * then `finish`) beside a reference loop measured in the same run — plain JS
 * with per-index `+=` concatenation and block objects, making no decisions —
 * and the ratio of the two. Both run over the same pre-built chunks,
 * alternating slice by slice, after a warm-up; times are this process's CPU
 * time, and the figures are the medians over the rounds.
 *
 * Workloads: (a1) one response of 100,000 text deltas with block framing;
 * (a2) 10,000 responses of 30 chunks (reasoning, text, a tool call with 5
 * argument deltas, usage, a finish with a 3-entry envelope); (a3) a2 finishing
 * `max-tokens`, which drops the tool calls and prunes the envelopes.
 * Targets: ratio ≤ 1.3 on a1, ≤ 1.15 on a2 and a3 (printed `ok` or `OVER`;
 * timing never fails the run). Last, `finish` is called twice on the same
 * states: the second call must return the same object, without assembling.
 *
 * Run: `npm run bench` or `node --expose-gc --import tsx packages/assembler/bench/assembler.bench.ts`.
 */
import { Assembler } from "@turnlog/assembler"
import type { AssistantBlock, FinishReason, StreamChunk } from "@turnlog/protocol"

const WARMUP = 5
const ROUNDS = 101

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
  const parts = ["{\"path\":", "\"src/", `f${n}`, ".ts\"", "}"]
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

const implementation = (chunks: ReadonlyArray<StreamChunk>) => {
  let state = Assembler.initial
  for (let i = 0; i < chunks.length; i++) state = Assembler.step(state, chunks[i]!)
  return Assembler.finish(state)
}

// ---------------------------------------------------------------- measurement

let sink = 0

type Loop = (chunks: ReadonlyArray<StreamChunk>) => { readonly blocks: ReadonlyArray<unknown> }

/**
 * CPU time of this process in ns. The machine is shared, so wall time would
 * count whatever else runs; CPU time counts this process only (its GC threads
 * included, which is fair: allocation is part of the cost).
 */
const cpu = (): number => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) * 1000
}

const time = (responses: ReadonlyArray<ReadonlyArray<StreamChunk>>, from: number, to: number, run: Loop): number => {
  const t0 = cpu()
  for (let r = from; r < to; r++) sink += run(responses[r]!).blocks.length
  return cpu() - t0
}

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const fmt = (x: number, digits = 1) => x.toFixed(digits).padStart(7)

/**
 * Times both loops over the whole workload once per round. The workload is cut
 * into slices and the two loops alternate slice by slice (which one goes first
 * alternating too), so that whatever else the machine is doing falls on both
 * alike; a1, one response, alternates whole runs.
 */
const measure = (name: string, target: number, responses: ReadonlyArray<ReadonlyArray<StreamChunk>>) => {
  const chunks = responses.reduce((n, r) => n + r.length, 0)
  const slice = Math.max(1, Math.ceil(responses.length / 40))
  const impl: Array<number> = []
  const ref: Array<number> = []
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    let a = 0
    let b = 0
    for (let from = 0, k = round; from < responses.length; from += slice, k++) {
      const to = Math.min(responses.length, from + slice)
      if (k % 2 === 0) {
        a += time(responses, from, to, implementation)
        b += time(responses, from, to, reference)
      } else {
        b += time(responses, from, to, reference)
        a += time(responses, from, to, implementation)
      }
    }
    if (round < WARMUP) continue
    impl.push(a / chunks)
    ref.push(b / chunks)
  }
  const ratio = median(impl) / median(ref)
  console.log(
    `${name}  ${String(chunks).padStart(6)} chunks  implementation ${fmt(median(impl))} ns/chunk` +
      `  reference ${fmt(median(ref))} ns/chunk  ratio ${fmt(ratio, 3)}  (target <= ${target}) ${ratio <= target ? "ok" : "OVER"}`,
  )
  return ratio <= target
}

/** `finish` twice on the same states: the second call must not assemble again. */
const finishTwice = (responses: ReadonlyArray<ReadonlyArray<StreamChunk>>) => {
  const firsts: Array<number> = []
  const seconds: Array<number> = []
  let same = true
  for (let round = 0; round < 5; round++) {
    const states = responses.map((chunks) => chunks.reduce(Assembler.step, Assembler.initial))
    let t0 = cpu()
    const once = states.map(Assembler.finish)
    firsts.push((cpu() - t0) / states.length)
    t0 = cpu()
    const twice = states.map(Assembler.finish)
    seconds.push((cpu() - t0) / states.length)
    same &&= once.every((result, i) => result === twice[i])
  }
  console.log(
    `finish twice (a2 states)  first call ${fmt(median(firsts))} ns  second call ${fmt(median(seconds))} ns` +
      `  same result object: ${same ? "yes" : "NO"}`,
  )
  return same
}

const started = Date.now()
const results = [
  measure("a1", 1.3, a1()),
  measure("a2", 1.15, a2()),
  measure("a3", 1.15, a3()),
  finishTwice(a2()),
]
console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s, ${WARMUP} warm-up + ${ROUNDS} rounds, medians; checksum ${sink})`)
// Timing depends on the machine and what else it runs; only a second
// assembly (a broken memo) fails the run.
process.exitCode = results[3] === true ? 0 : 1
