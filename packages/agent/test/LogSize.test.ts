// What a turn costs on disk, and that batching raw chunks keeps the log's
// promises: every chunk kept, everything streamed before a request flushed
// before it starts, and a version-1 session still written one chunk per event.
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Stream } from "effect"
import { LlmAdapter, Scripted } from "@turnlog/llm"
import { type ReplayEnvelope, SessionLog, type StreamChunk } from "@turnlog/protocol"
import { LogFormat } from "@turnlog/store"
import * as C from "./support/chunks.js"
import { chunksOf, ONE_STEP_TURN, outline, setup, tempDir } from "./support/harness.js"

/** The words of a model's answer, each delta one word with its space, as providers stream them. */
const ANSWER = (
  "The retry schedule starts at the base delay and doubles it after every failed attempt, " +
  "capped at the maximum delay, unless the provider said when to come back, which is honoured as given. " +
  "Only failures that showed nothing to the user are retried, so a retry never repeats text on the screen. " +
  "A request that failed because the context window is full is compacted once and sent again; a request " +
  "whose replay state was refused is sent again with that state set aside, also once per step, so a refusal " +
  "never loops. Everything the model streamed before a failure stays in the log as evidence, and the next " +
  "request is built from the durable messages only, never from the chunks of the failed attempt, which keeps " +
  "the history the same for every retry of the step."
).split(/(?<=\s)/)

/** An envelope of the size the pi-ai adapter writes for one text block. */
const ENVELOPE: ReplayEnvelope = {
  response: {
    kind: "pi-ai",
    version: 2,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    responseId: "msg_01XFDUDYJgAACzvnptvVoYEL",
    stopReason: "stop",
  },
  blocks: [{ type: "text" }],
}

/** A text answer of `n` one-word deltas, with usage and a finish carrying the envelope. */
const answer = (n: number): Array<StreamChunk> => {
  expect(ANSWER.length).toBeGreaterThanOrEqual(n)
  return [...C.text(0, ...ANSWER.slice(0, n)), C.usage(1200, n), C.stop(ENVELOPE)]
}

const PROMPT = "How does the retry schedule decide when to try again?"

const sizeOf = (home: string, id: string) => fs.statSync(path.join(home, "sessions", `${id}.jsonl`)).size

/** The bytes one turn adds to the session's log. */
const turnBytes = (h: Effect.Effect.Success<ReturnType<typeof setup>>) =>
  Effect.gen(function*() {
    const before = sizeOf(h.home, h.id)
    yield* h.prompt(PROMPT)
    return sizeOf(h.home, h.id) - before
  })

/** A version-1 session (its header only, as the build before batching made it) opened by the loop. */
const versionOne = (h: Effect.Effect.Success<ReturnType<typeof setup>>) =>
  Effect.gen(function*() {
    const id = "20261201T000000-0000v1v1"
    const header = { type: "session", version: 1, id, createdAt: "2026-12-01T00:00:00.000Z", cwd: h.cwd }
    fs.writeFileSync(path.join(h.home, "sessions", `${id}.jsonl`), JSON.stringify(header) + "\n")
    yield* h.loop.load(id as never)
    return id
  })

describe("the log of a text turn", () => {
  // 1,502 and 2,031 bytes when measured: each text once and the batch packed (version 4), where version 3 took 2,390 and 3,005.
  for (const [deltas, limit] of [[20, 1550], [100, 2080]] as const) {
    it.scoped(`a ${deltas}-delta answer adds at most ${limit} bytes, every chunk kept in one batch`, () =>
      Effect.gen(function*() {
        const h = yield* setup([answer(deltas)], { disk: true })
        const bytes = yield* turnBytes(h)
        expect(bytes).toBeLessThanOrEqual(limit)
        const events = yield* h.events()
        expect(outline(events)).toEqual(ONE_STEP_TURN)
        expect(events.filter((e) => e.type === "assistant/chunks")).toHaveLength(1)
        expect(chunksOf(events)).toEqual(answer(deltas))
      }))
  }

  it.scoped("a version-1 session is continued in version-1 events, one chunk per line, and costs what it did", () =>
    Effect.gen(function*() {
      const h = yield* setup([answer(20)], { disk: true })
      const id = yield* versionOne(h)
      const before = sizeOf(h.home, id)
      yield* Stream.runDrain(h.loop.prompt(id as never, PROMPT))
      const lines = fs.readFileSync(path.join(h.home, "sessions", `${id}.jsonl`), "utf8").trimEnd().split("\n")
      expect(JSON.parse(lines[0]!).version).toBe(1)
      const types = lines.slice(1).map((line) => JSON.parse(line).type as string)
      expect(types.filter((t) => t === "assistant/chunk")).toHaveLength(answer(20).length)
      expect(types).not.toContain("assistant/chunks")
      // The same turn in a version-2 session costs less than half.
      const v2 = yield* setup([answer(20)], { disk: true })
      const compact = yield* turnBytes(v2)
      expect(compact * 2).toBeLessThan(sizeOf(h.home, id) - before)
    }))
})

describe("the log of a long answer", () => {
  it.scoped("a 300 KB answer of 3,000 deltas is stored once, in its batches: its block-end and its message refer back to them", () =>
    Effect.gen(function*() {
      const deltas = Array.from({ length: 3000 }, (_, i) => `w${i} `.padEnd(100, "x"))
      const h = yield* setup([[...C.text(0, ...deltas), C.usage(1200, 3000), C.stop(ENVELOPE)]], { disk: true })
      const bytes = yield* turnBytes(h)
      // 308,169 bytes when measured: the text once, with its deltas' lengths and the envelope (at most 1.3 times the text).
      // Version 3 stored it twice (614,408 bytes: the deltas, the message), version 2 three times (914,433: the block-end too).
      expect(bytes).toBeLessThanOrEqual(1.03 * 300_000)
      const events = yield* h.events()
      const batches = events.filter((e) => e.type === "assistant/chunks")
      expect(batches).toHaveLength(6)
      const last = batches[batches.length - 1]!
      expect(last.type === "assistant/chunks" ? last.data.entries.map((e) => e.type).slice(-4) : []).toStrictEqual([
        "text-deltas",
        "block-end-streamed",
        "usage",
        "finish",
      ])
      expect(chunksOf(events).filter((c) => c.type === "block-end")).toStrictEqual([
        { type: "block-end", index: 0, block: { type: "text", text: deltas.join("") } },
      ])
      // The message line refers to the batches' text; read back, it holds it whole.
      const lines = fs.readFileSync(path.join(h.home, "sessions", `${h.id}.jsonl`), "utf8").trimEnd().split("\n")
      const messageLine = JSON.parse(lines.at(-2)!)
      expect([messageLine.type, messageLine.data.message.content, messageLine.data.usage]).toStrictEqual([
        "assistant/message",
        [{ type: "text", streamed: 0 }],
        "streamed",
      ])
      const message = events.find((e) => e.type === "assistant/message")
      expect(message?.type === "assistant/message" ? message.data.message.content : undefined).toStrictEqual([{ type: "text", text: deltas.join("") }])
    }))
})

describe("batches and flushes", () => {
  it.scoped("everything streamed before a request is on disk when the request starts", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("turnlog-flush-")
      fs.writeFileSync(path.join(dir, "notes.txt"), "plan")
      const first = [...C.text(0, "Reading ", "the ", "notes."), ...C.toolCall(1, "call_1", "read_file", `{"path":"notes.txt"}`), C.toolCalls()]
      const scripted = yield* Scripted.make([first, C.reply("It ", "says ", "plan.")])
      // What the log file holds, read by the model as each request arrives.
      const seen: Array<ReadonlyArray<StreamChunk>> = []
      let file = ""
      const adapter: LlmAdapter.Service = {
        stream: (request) =>
          Stream.unwrap(Effect.sync(() => {
            // Read as a store reads the file (a version-4 batch line is packed).
            const log = Either.getOrThrow(LogFormat.decode(fs.readFileSync(file), file))
            seen.push(SessionLog.chunksIn(log.events))
            return scripted.adapter.stream(request)
          })),
      }
      const h = yield* setup([], { llm: Layer.succeed(LlmAdapter.LlmAdapter, adapter), disk: true })
      file = path.join(h.home, "sessions", `${h.id}.jsonl`)
      fs.writeFileSync(path.join(h.cwd, "notes.txt"), "plan")
      yield* h.prompt("what do the notes say?")
      expect(seen).toEqual([[], first])
      expect(chunksOf(yield* h.events())).toEqual([...first, ...C.reply("It ", "says ", "plan.")])
    }))

  it.scoped("a cancelled turn keeps the chunks it streamed", () =>
    Effect.gen(function*() {
      const h = yield* setup([{ chunks: C.text(0, "half ", "an ", "answer").slice(0, 3), stall: true }], { disk: true })
      yield* h.loop.prompt(h.id, "go").pipe(
        Stream.runForEach((update) => (update.type === "text-delta" && update.text === "an " ? h.loop.cancel(h.id) : Effect.void)),
      )
      const events = yield* h.events()
      expect(chunksOf(events)).toEqual(C.text(0, "half ", "an ", "answer").slice(0, 3))
      expect(outline(events).slice(-4)).toEqual(["request/start", "assistant/chunk*", "assistant/message", "turn/end"])
    }))
})
