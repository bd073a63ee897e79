/**
 * Read-side benchmark of the ai-sdk adapter, beside the pi-ai one
 * (packages/llm-pi-ai/bench/replay.bench.ts): reconstructing durable history
 * into AI SDK prompt messages through the ai-sdk codec and the history
 * reconstructor, against a reference measured in the same process — a plain
 * map building the same native objects straight from content and state, with
 * no validation, no Effect and no recovery (checked deep-equal to the
 * subject's output before timing) — and the ratio of the two.
 *
 * Workloads (10,000 assistant messages: text; reasoning + text; reasoning +
 * text + a tool call, in turn):
 *   valid    every message carries a usable ai-sdk version-1 state → native
 *   foreign  every message carries a pi-ai version-2 state → degraded (neutral),
 *            the session moved from the pi-ai adapter
 *   mixed    the two alternating
 *
 * After a warm-up, reference and subject alternate in pairs of rounds
 * (reference, subject, subject, reference), each round after a full
 * collection; figures are medians over the pairs, the ratio the median of the
 * per-pair ratios. No target is tuned for here: the figures say what the
 * plain codec costs.
 *
 * Run: `npm run bench llm-ai-sdk` or `node --expose-gc --import tsx packages/llm-ai-sdk/bench/replay.bench.ts`.
 */
import { isDeepStrictEqual } from "node:util"
import { Effect } from "effect"
import { History } from "@turnlog/history"
import { type AssistantBlock, type Message, MessageId } from "@turnlog/protocol"
import { AiSdkReplay } from "@turnlog/llm-ai-sdk"

const gc: () => void = (globalThis as { gc?: () => void }).gc ?? (() => {})
const N = 10_000
const WARMUP = 5
const PAIRS = 10

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
    response: { kind: "ai-sdk", version: 1, ...route, sdkProvider: "anthropic.messages", responseId: `msg_${n}` },
    blocks: blocks.map((b) =>
      b.type === "reasoning" ? { type: "reasoning", providerMetadata: { anthropic: { signature: `EqQBCkgIBRgCIkD${n}sig` } } } : { type: b.type }
    ),
  }, blocks)
}

const foreign = (n: number): Message => {
  const blocks = content(n)
  return message(n, {
    response: { kind: "pi-ai", version: 2, api: "anthropic-messages", ...route, stopReason: "stop" },
    blocks: blocks.map((b) => (b.type === "reasoning" ? { type: "reasoning", thinkingSignature: `EqQBCkgIBRgCIkD${n}sig` } : { type: b.type })),
  }, blocks)
}

const workloads: Record<string, (n: number) => Message> = {
  valid,
  foreign,
  mixed: (n) => (n % 2 === 0 ? valid(n) : foreign(n)),
}

/** The reference: the same native objects from content and state, trusting both, in plain loops. */
const reference = (messages: ReadonlyArray<Message>): Array<AiSdkReplay.NativeAssistant> => {
  const out: Array<AiSdkReplay.NativeAssistant> = new Array(messages.length)
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
    out[k] = { route: own ? { provider: route.provider, model: route.model, sdkProvider: state.response.sdkProvider } : undefined, parts }
  }
  return out
}

const subject = (messages: ReadonlyArray<Message>) =>
  Effect.runSync(History.reconstruct(messages, AiSdkReplay.codec, { targetRoute: "anthropic/claude-x", report: () => Effect.void }))

const time = (run: () => unknown): number => {
  gc()
  const start = performance.now()
  run()
  return performance.now() - start
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

console.log("| workload | reference ms | subject ms | ratio |")
console.log("|---|---|---|---|")
for (const [name, make] of Object.entries(workloads)) {
  const messages = Array.from({ length: N }, (_, n) => make(n))
  if (!isDeepStrictEqual(reference(messages), subject(messages))) {
    console.error(`${name}: the subject's output differs from the reference's`)
    process.exit(1)
  }
  for (let i = 0; i < WARMUP; i++) {
    reference(messages)
    subject(messages)
  }
  const refs: Array<number> = []
  const subs: Array<number> = []
  const ratios: Array<number> = []
  for (let i = 0; i < PAIRS; i++) {
    const r1 = time(() => reference(messages))
    const s1 = time(() => subject(messages))
    const s2 = time(() => subject(messages))
    const r2 = time(() => reference(messages))
    refs.push(r1, r2)
    subs.push(s1, s2)
    ratios.push((s1 + s2) / (r1 + r2))
  }
  console.log(`| ${name} | ${median(refs).toFixed(2)} | ${median(subs).toFixed(2)} | ${median(ratios).toFixed(2)} |`)
}
