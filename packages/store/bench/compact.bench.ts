/**
 * Cold load of a log in format version 2 (raw chunks in `assistant/chunks`
 * batches), JSONL layer: about 100 MB of long turns — each a user message, a
 * request, one batch of 100 text deltas of a word each (with usage and a
 * finish carrying an envelope), the assembled message and the turn's end —
 * written straight to the file, then `read` through a freshly built layer
 * (every line decoded and validated, batches' damage checks included). Beside
 * it, the in-run reference: the same file read with `readFileSync` and each
 * line `JSON.parse`d. They alternate with a collection between runs; medians
 * of the rounds; the ratio is store / reference. Target (issue 13): ≤ 1.0.
 * Also printed: bytes per turn, version 2 beside the same turn in version 1.
 *
 * Run: `npm run bench compact`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import { type SessionId, SessionLog, type StreamChunk } from "@turnlog/protocol"
import { layerJsonl } from "../src/Jsonl.js"
import * as LogFormat from "../src/LogFormat.js"
import { type Service, SessionStore } from "../src/SessionStore.js"
import type { StoreError } from "../src/StoreError.js"

const TARGET_BYTES = 100 * 1024 * 1024
const ROUNDS = 5
const DELTAS = 100

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const WORDS = ("the store keeps every raw chunk of a response in batches so that a long session costs " +
  "what its answers cost and not what their envelopes cost when each delta was written as its own line ").split(/(?<=\s)/)

const chunksOf = (turn: number): Array<StreamChunk> => {
  const deltas = Array.from({ length: DELTAS }, (_, i) => WORDS[(turn + i) % WORDS.length]!)
  return [
    { type: "block-start", index: 0, blockType: "text" },
    ...deltas.map((text): StreamChunk => ({ type: "text-delta", index: 0, text })),
    { type: "block-end", index: 0, block: { type: "text", text: deltas.join("") } },
    { type: "usage", usage: { inputTokens: 1200 + turn, outputTokens: DELTAS } },
    {
      type: "finish",
      reason: { kind: "stop" },
      replayState: {
        response: { kind: "pi-ai", version: 2, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", stopReason: "stop" },
        blocks: [{ type: "text" }],
      },
    },
  ]
}

/** One turn's events from `seq`, raw chunks batched (version 2) or one per event (version 1). */
const turnInputs = (turn: number, batched: boolean): Array<SessionLog.EventInput> => {
  const chunks = chunksOf(turn)
  const text = (chunks[DELTAS + 1] as Extract<StreamChunk, { type: "block-end" }>).block
  return [
    { type: "turn/start", data: {} },
    {
      type: "user/message",
      data: { message: { id: `msg_u${turn}` as never, role: "user", content: [{ type: "text", text: `question ${turn}` }], source: { kind: "user" } } },
    },
    { type: "request/start", data: { provider: "anthropic", model: "claude-sonnet-4-5", step: 1, attempt: 1 } },
    ...(batched ? [SessionLog.batchOf(chunks)] : chunks.map((chunk) => ({ type: "assistant/chunk" as const, data: { chunk } }))),
    {
      type: "assistant/message",
      data: {
        message: {
          id: `msg_a${turn}` as never,
          role: "assistant",
          content: [text],
          source: { kind: "model", provider: "anthropic", model: "claude-sonnet-4-5" },
        },
        finish: { kind: "stop" },
      },
    },
    { type: "turn/end", data: { reason: "completed" } },
  ]
}

const linesOf = (turn: number, seq: number, batched: boolean) =>
  SessionLog.stamp(seq, turnInputs(turn, batched), new Date(1_750_000_000_000 + turn).toISOString())
    .map((e) => JSON.stringify(e) + "\n").join("")

const withStore = <A>(layer: Layer.Layer<SessionStore, StoreError>, f: (store: Service) => Effect.Effect<A, StoreError>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(Layer.build(layer), (ctx) => f(Context.get(ctx, SessionStore)))))

const timeIt = (f: () => unknown): Promise<number> =>
  Promise.resolve().then(async () => {
    gc()
    const started = performance.now()
    await f()
    return performance.now() - started
  })

const main = async () => {
  const v1 = Buffer.byteLength(linesOf(1, 1, false))
  const v2 = Buffer.byteLength(linesOf(1, 1, true))
  // Version 4: the same turn, its message referring to the text its request streamed.
  const v4 = Buffer.byteLength(
    LogFormat.encoder({ type: "session", version: 4, id: "x" as SessionId, createdAt: "", cwd: "/" })(
      SessionLog.stamp(1, turnInputs(1, true), new Date(1_750_000_000_001).toISOString()),
    ),
  )
  console.log(
    `bytes per ${DELTAS}-delta turn: version 1 ${v1} B, version 2 ${v2} B (${(v2 / v1).toFixed(2)}×), ` +
      `version 4 ${v4} B (${(v4 / v1).toFixed(2)}×)`,
  )

  const home = mkdtempSync(join(tmpdir(), "turnlog-bench-compact-"))
  try {
    mkdirSync(join(home, "sessions"))
    const id = "20260101T000000-00000000" as SessionId
    const file = join(home, "sessions", `${id}.jsonl`)
    const parts = [JSON.stringify({ type: "session", version: SessionLog.LOG_VERSION, id, createdAt: "2026-01-01T00:00:00.000Z", cwd: "/bench" }) + "\n"]
    let bytes = parts[0]!.length
    let seq = 1
    let turns = 0
    while (bytes < TARGET_BYTES) {
      const lines = linesOf(++turns, seq, true)
      seq += 6
      parts.push(lines)
      bytes += lines.length
    }
    writeFileSync(file, parts.join(""))
    const mb = statSync(file).size / 1024 / 1024
    const layer = layerJsonl({ home })
    const reference = () => {
      const out: Array<unknown> = []
      for (const line of readFileSync(file, "utf8").split("\n")) if (line.length > 0) out.push(JSON.parse(line))
      return out.length
    }
    let events = 0
    const ours: Array<number> = []
    const refs: Array<number> = []
    for (let round = 0; round < ROUNDS; round++) {
      ours.push(await timeIt(() => withStore(layer, (store) => Effect.map(store.read(id), (loaded) => (events = loaded.events.length)))))
      refs.push(await timeIt(reference))
    }
    const store = median(ours)
    const ref = median(refs)
    console.log(
      `jsonl cold load, version 2: ${turns} turns, ${events} events, ${mb.toFixed(1)} MB: ${store.toFixed(0)} ms; reference (readFile + JSON.parse) ${
        ref.toFixed(0)
      } ms; ratio ${(store / ref).toFixed(2)} (target ≤ 1.0)`,
    )
    console.log(`jsonl   rounds (ms) store [${ours.map((x) => x.toFixed(0)).join(", ")}] reference [${refs.map((x) => x.toFixed(0)).join(", ")}]`)
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

void main()
