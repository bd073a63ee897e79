/**
 * Read-side benchmark of the two adapters in one run: reconstructing durable
 * history into AI SDK prompt messages through the ai-sdk codec and the history
 * reconstructor, beside the same workloads through the pi-ai codec
 * (packages/llm-pi-ai/bench/replay.bench.ts, whose workloads this run starts
 * too). Each adapter is measured against the same kind of reference, in the
 * same process as its subject: a plain map building that adapter's native
 * objects straight from content and state, with no validation, no Effect and
 * no recovery (checked deep-equal to the subject's output before timing). The
 * ratios say what each codec costs over the plain map; the ns/message figures
 * of the two can be read side by side, the workloads being the same messages.
 *
 * Workloads (10,000 assistant messages: text; reasoning + text; reasoning +
 * text + a tool call, in turn):
 *   valid    every message carries the adapter's own state → native
 *   foreign  every message carries the other adapter's state → degraded
 *            (neutral): the session moved from the other adapter
 *   moved    the two alternating
 * Growing session: one request's reconstruction at step 100 and step 1,000 of
 * one session grown request by request (a user and an assistant message per
 * step), through the reconstruction each adapter keeps per session (both:
 * the incremental `SessionHistory` of `@turnlog/history`).
 *
 * Method, as the pi-ai bench's: one child process per workload (this file
 * re-invoked with the workload's name), collection on the measuring thread
 * (`--single-threaded-gc`), a warm-up, then reference and subject alternating
 * in pairs of rounds (reference, subject, subject, reference), each round
 * after a full collection; figures are medians over the pairs, the ratio the
 * median of the per-pair ratios. No target is tuned for here.
 *
 * Run: `npm run bench -- replay` (both replay benches) or
 * `node --expose-gc --conditions=@turnlog/source --import tsx packages/llm-ai-sdk/bench/replay.bench.ts`
 * (one ai-sdk workload alone: append its name; its figures are printed as JSON).
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { isDeepStrictEqual } from "node:util"
import { Effect } from "effect"
import { History } from "@turnlog/history"
import * as SessionHistory from "@turnlog/history/SessionHistory"
import { type AssistantBlock, type Message, MessageId } from "@turnlog/protocol"
import { AiSdkReplay } from "@turnlog/llm-ai-sdk"

const gc: () => void = (globalThis as { gc?: () => void }).gc ?? (() => {})
const N = 10_000
const WARMUP = 5
const ROUNDS = 21

// ---------------------------------------------------------------- workloads (the same messages as the pi-ai bench's)

const content = (n: number): Array<AssistantBlock> => {
  const text: AssistantBlock = { type: "text", text: `Answer ${n}: the file has ${n % 97} lines.` }
  const reasoning: AssistantBlock = { type: "reasoning", text: `Step ${n}: look at the file before answering.` }
  const call: AssistantBlock = { type: "tool-call", id: `toolu_${n}`, name: "read", arguments: `{"path":"src/f${n}.ts","limit":${n % 50}}` }
  return n % 3 === 0 ? [text] : n % 3 === 1 ? [reasoning, text] : [reasoning, text, call]
}

const route = { provider: "anthropic", model: "claude-x" }

const message = (n: number, state: unknown, blocks: Array<AssistantBlock>): Message => ({
  id: MessageId.make(`msg_${n}`),
  role: "assistant",
  content: blocks,
  source: { kind: "model", ...route, replayState: state },
})

const valid = (n: number): Message => {
  const blocks = content(n)
  return message(n, {
    response: { kind: "ai-sdk", version: 1, ...route, sdkProvider: "anthropic.messages", responseId: `msg_01${n}` },
    blocks: blocks.map((b) =>
      b.type === "reasoning" ? { type: "reasoning", providerMetadata: { anthropic: { signature: `EqQBCkgIBRgCIkD${n}sig` } } } : { type: b.type }
    ),
  }, blocks)
}

const foreign = (n: number): Message => {
  const blocks = content(n)
  return message(n, {
    response: {
      kind: "pi-ai",
      version: 2,
      api: "anthropic-messages",
      ...route,
      responseId: `msg_01${n}`,
      stopReason: blocks.some((b) => b.type === "tool-call") ? "toolUse" : "stop",
    },
    blocks: blocks.map((b) => (b.type === "reasoning" ? { type: "reasoning", thinkingSignature: `EqQBCkgIBRgCIkD${n}sig` } : { type: b.type })),
  }, blocks)
}

// ---------------------------------------------------------------- reference: a plain map, no checks

type NativeAssistant = AiSdkReplay.NativeAssistant

const reference = (messages: ReadonlyArray<Message>): Array<NativeAssistant> => {
  const out: Array<NativeAssistant> = new Array(messages.length)
  for (let k = 0; k < messages.length; k++) {
    const m = messages[k]!
    const state = (m.source as { replayState: { response: { kind: string; sdkProvider: string }; blocks: Array<{ providerMetadata?: never }> } })
      .replayState
    const own = state.response.kind === "ai-sdk"
    const parts: Array<AiSdkReplay.AssistantPart> = []
    for (let i = 0; i < m.content.length; i++) {
      const block = m.content[i]!
      const metadata = own ? state.blocks[i]!.providerMetadata : undefined
      if (block.type === "text") {
        parts.push(metadata === undefined ? { type: "text", text: block.text } : { type: "text", text: block.text, providerOptions: metadata })
      } else if (block.type === "reasoning") {
        if (own) {
          parts.push(
            metadata === undefined ? { type: "reasoning", text: block.text } : { type: "reasoning", text: block.text, providerOptions: metadata },
          )
        }
      } else if (block.type === "tool-call") {
        parts.push({ type: "tool-call", toolCallId: block.id, toolName: block.name, input: JSON.parse(block.arguments) })
      }
    }
    out[k] = { route: own ? { ...route, sdkProvider: state.response.sdkProvider } : undefined, parts }
  }
  return out
}

// ---------------------------------------------------------------- subject

const options: History.ReconstructOptions = { targetRoute: "anthropic/claude-x", report: () => Effect.void }
const subject = (messages: ReadonlyArray<Message>): ReadonlyArray<NativeAssistant> => Effect.runSync(History.reconstruct(messages, AiSdkReplay.codec, options))

// ---------------------------------------------------------------- measurement

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Wall time of `f` in nanoseconds, after a full collection. */
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

const compare = (messages: ReadonlyArray<Message>): Figures => {
  if (!isDeepStrictEqual(subject(messages), reference(messages))) throw new Error("the subject's output differs from the reference's")
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
  return { subject: median(sub) / messages.length, reference: median(ref) / messages.length, ratio: median(ratios) }
}

// ---------------------------------------------------------------- growing session

interface SessionFigures {
  readonly at100: number
  readonly at1000: number
}

const userAt = (step: number): Message => ({
  id: MessageId.make(`user_${step}`),
  role: "user",
  content: [{ type: "text", text: `question ${step}` }],
  source: { kind: "user" },
})
const WINDOW = 21
const STEPS = 1_000 + WINDOW

/** As the pi-ai bench's: the median request of a window around each step, the median over several sessions. */
const growingSession = (): SessionFigures => {
  const session = Array.from({ length: STEPS }, (_, step) => [userAt(step), valid(step)]).flat()
  const near = (at: number, step: number) => Math.abs(step - at) <= WINDOW >> 1
  const at100: Array<number> = []
  const at1000: Array<number> = []
  for (let round = 0; round < 2 + 9; round++) {
    // What the adapter keeps per session.
    const history = SessionHistory.make(AiSdkReplay.codec)
    const around100: Array<number> = []
    const around1000: Array<number> = []
    for (let step = 1; step <= STEPS; step++) {
      const messages = session.slice(0, step * 2)
      const start = process.hrtime.bigint()
      sink += Effect.runSync(history.reconstruct(messages, options)).length
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
  valid: () => compare(Array.from({ length: N }, (_, n) => valid(n))),
  foreign: () => compare(Array.from({ length: N }, (_, n) => foreign(n))),
  moved: () => compare(Array.from({ length: N }, (_, n) => (n % 2 === 0 ? valid(n) : foreign(n)))),
  session: growingSession,
}

const PI_AI = fileURLToPath(new URL("../../llm-pi-ai/bench/replay.bench.ts", import.meta.url))

/** One workload of `file` (this bench or the pi-ai one) in a process of its own. */
const child = <A>(file: string, name: string): A => {
  const args = [...process.execArgv, "--single-threaded-gc", file, name]
  const run = spawnSync(process.execPath, args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
  if (run.status !== 0) throw new Error(`workload ${name} of ${file} failed (exit ${run.status})`)
  return JSON.parse(run.stdout.trim().split("\n").pop()!) as A
}

const only = process.argv[2]
if (only !== undefined) {
  const workload = workloads[only]
  if (workload === undefined) throw new Error(`unknown workload ${only}; one of ${Object.keys(workloads).join(", ")}`)
  console.log(JSON.stringify(workload()))
  if (sink < 0) console.log(sink)
} else {
  const SELF = fileURLToPath(import.meta.url)
  console.log(
    `reconstructing ${N} assistant messages, the pi-ai and ai-sdk adapters in one run (wall time, median of ${ROUNDS} alternating pairs of rounds, one process per workload; each adapter against a plain map building its own native form)`,
  )
  console.log("| workload | pi-ai ns/message | its reference | ratio | ai-sdk ns/message | its reference | ratio |")
  console.log("|---|---|---|---|---|---|---|")
  const cell = (f: Figures) => `${f.subject.toFixed(0)} | ${f.reference.toFixed(0)} | ${f.ratio.toFixed(2)}`
  for (const name of ["valid", "foreign", "moved"]) {
    console.log(`| ${name} | ${cell(child<Figures>(PI_AI, name))} | ${cell(child<Figures>(SELF, name))} |`)
  }
  // A request's reconstruction at step 100 → step 1,000 of a growing session, in µs, and the ratio of the two.
  const sessionCell = (f: SessionFigures) => `${(f.at100 / 1000).toFixed(1)} → ${(f.at1000 / 1000).toFixed(1)} µs | | ${(f.at1000 / f.at100).toFixed(2)}`
  console.log(
    `| session, step 100 → 1,000 | ${sessionCell(child<SessionFigures>(PI_AI, "session"))} | ${sessionCell(child<SessionFigures>(SELF, "session"))} |`,
  )
}
