// Log format version 4: a message line refers to what its request streamed
// instead of holding it again; every reader rebuilds the event exactly.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Chunk, Effect, Either, FastCheck as fc, Stream } from "effect"
import { ChunkBatch, MessageId, type ReplayEnvelope, type SessionId, SessionLog, type StreamChunk } from "@turnlog/protocol"
import { Jsonl, LogFormat } from "../src/index.js"
import { Streamed } from "../src/internal/StreamedRefs.js"
import { withStore } from "./support/conformance.js"
import { stamped, userMessage } from "./support/fixtures.js"

const ENVELOPE: ReplayEnvelope = {
  response: { kind: "pi-ai", version: 2, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", stopReason: "toolUse" },
  blocks: [{ type: "reasoning", entry: { signature: "sig-1" } }, { type: "text" }, { type: "tool-call" }],
}

const REASONING = ["Let me look ", "at the notes ", "first."]
const TEXT = ["Reading ", "the notes ", "now, then ", "I answer."]
const ARGS = ['{"path":', '"notes.txt"}']

/** A request streaming reasoning, text and a tool call over `batches` batches, then its message. */
const stepEvents = (
  batches: number,
  message?: Partial<{ text: string; replayState: ReplayEnvelope; usage: { inputTokens: number; outputTokens: number } }>,
) => {
  const chunks: Array<StreamChunk> = [
    { type: "block-start", index: 0, blockType: "reasoning" },
    ...REASONING.map((text): StreamChunk => ({ type: "reasoning-delta", index: 0, text })),
    { type: "block-end", index: 0, block: { type: "reasoning", text: REASONING.join("") } },
    { type: "block-start", index: 1, blockType: "text" },
    ...TEXT.map((text): StreamChunk => ({ type: "text-delta", index: 1, text })),
    { type: "block-end", index: 1, block: { type: "text", text: TEXT.join("") } },
    { type: "block-start", index: 2, blockType: "tool-call" },
    ...ARGS.map((argumentsDelta): StreamChunk => ({ type: "tool-call-delta", index: 2, id: "call_1", name: "read_file", argumentsDelta })),
    { type: "block-end", index: 2, block: { type: "tool-call", id: "call_1", name: "read_file", arguments: ARGS.join("") } },
    { type: "usage", usage: { inputTokens: 1200, outputTokens: 40 } },
    { type: "finish", reason: { kind: "tool-calls" }, replayState: ENVELOPE },
  ]
  const tracker = new ChunkBatch.Tracker()
  const size = Math.ceil(chunks.length / batches)
  const batched = Array.from({ length: batches }, (_, i) => SessionLog.batchOf(chunks.slice(i * size, (i + 1) * size), tracker))
  return [
    { type: "request/start" as const, data: { provider: "anthropic", model: "claude-sonnet-4-5", step: 1, attempt: 1 } },
    ...batched,
    {
      type: "assistant/message" as const,
      data: {
        message: {
          id: MessageId.make("msg_a"),
          role: "assistant" as const,
          content: [
            { type: "reasoning" as const, text: REASONING.join("") },
            { type: "text" as const, text: message?.text ?? TEXT.join("") },
            { type: "tool-call" as const, id: "call_1", name: "read_file", arguments: ARGS.join("") },
          ],
          source: { kind: "model" as const, provider: "anthropic", model: "claude-sonnet-4-5", replayState: message?.replayState ?? ENVELOPE },
        },
        finish: { kind: "tool-calls" as const },
        usage: message?.usage ?? { inputTokens: 1200, outputTokens: 40 },
      },
    },
    { type: "tool/call" as const, data: { callId: "call_1", name: "read_file", arguments: ARGS.join("") } },
  ]
}

const turnOf = (batches: number, message?: Parameters<typeof stepEvents>[1]) =>
  stamped(1, [{ type: "turn/start", data: {} }, userMessage("what do the notes say?"), ...stepEvents(batches, message)])

/** The lines a writer of a `version` log writes for `events`, parsed. */
const encoded = (events: ReadonlyArray<SessionLog.SessionEvent>, version = SessionLog.LOG_VERSION) => {
  const streamed = new Streamed(version)
  return events.map((event) => JSON.parse(JSON.stringify(streamed.encode(event))) as { type: string; data: Record<string, unknown> })
}

/** What a reader rebuilds from those lines: the events, or the first problem. */
const decoded = (lines: ReadonlyArray<unknown>, version = SessionLog.LOG_VERSION) => {
  const streamed = new Streamed(version)
  const out: Array<unknown> = []
  for (const line of lines) {
    const value = JSON.parse(JSON.stringify(line)) as unknown
    const problem = streamed.decode(value)
    if (problem !== undefined) return problem
    out.push(value)
  }
  return out
}

describe("a version-4 message refers to what its request streamed", () => {
  for (const batches of [1, 3]) {
    it(`writes each text, the envelope and the usage once (${batches} batch${batches === 1 ? "" : "es"}) and reads the event back exactly`, () => {
      const events = turnOf(batches)
      const lines = encoded(events)
      const message = lines[lines.length - 2]!
      expect(lines.at(-1)!.data).toStrictEqual({ callId: "call_1", name: "read_file", streamed: 2 })
      expect(message.data).toStrictEqual({
        message: {
          id: "msg_a",
          role: "assistant",
          content: [{ type: "reasoning", streamed: 0 }, { type: "text", streamed: 1 }, { type: "tool-call", id: "call_1", name: "read_file", streamed: 2 }],
          source: { kind: "model", provider: "anthropic", model: "claude-sonnet-4-5", replayState: "streamed" },
        },
        finish: { kind: "tool-calls" },
        usage: "streamed",
      })
      // The batches are packed (their own test below); every other line is the event as it is.
      const plain = (list: ReadonlyArray<{ type: string }>) => list.slice(0, -2).filter((e) => e.type !== "assistant/chunks")
      expect(plain(lines)).toStrictEqual(JSON.parse(JSON.stringify(plain(events))))
      expect(lines.filter((e) => e.type === "assistant/chunks").map((e) => Object.keys(e.data))).toStrictEqual(
        Array.from({ length: batches }, () => ["packed"]),
      )
      const back = decoded(lines)
      expect(JSON.stringify(back)).toBe(JSON.stringify(events))
    })
  }

  it("writes whole what its request did not stream as it is, and refers to the rest", () => {
    const other: ReplayEnvelope = { ...ENVELOPE, blocks: ENVELOPE.blocks!.slice(0, 2) }
    const events = turnOf(2, { text: "Something the deltas never said.", replayState: other, usage: { inputTokens: 1200, outputTokens: 41 } })
    const message = encoded(events).at(-2)!.data as { message: { content: Array<unknown>; source: { replayState: unknown } }; usage: unknown }
    expect(message.message.content[1]).toStrictEqual({ type: "text", text: "Something the deltas never said." })
    expect(message.message.content[0]).toStrictEqual({ type: "reasoning", streamed: 0 })
    expect(message.message.source.replayState).toStrictEqual(other)
    expect(message.usage).toStrictEqual({ inputTokens: 1200, outputTokens: 41 })
    expect(JSON.stringify(decoded(encoded(events)))).toBe(JSON.stringify(events))
  })

  it("refers to nothing a writer did not see streamed since the request started, nor in a log before version 4", () => {
    const events = turnOf(2)
    // A writer that opened the log after the request started (the request/start is not its own).
    const streamed = new Streamed(SessionLog.LOG_VERSION)
    const fromMidRequest = events.slice(3).map((event) => JSON.stringify(streamed.encode(event)))
    expect(fromMidRequest.slice(-2)).toStrictEqual(events.slice(-2).map((event) => JSON.stringify(event)))
    expect(encoded(events, 3)).toStrictEqual(JSON.parse(JSON.stringify(events)))
  })

  it("refuses a reference with nothing to give, saying which and why", () => {
    const lines = encoded(turnOf(1)).slice(0, -1)
    const message = lines.at(-1)!
    // The batch that streamed the text is gone (a request/start between): nothing at index 1.
    expect(decoded([...lines.slice(0, -1), lines[2]!, message])).toBe(
      "message.content.0: refers to the reasoning its request streamed at index 0, and the request streamed none",
    )
    const wrongIndex = JSON.parse(JSON.stringify(message).replace('"streamed":1', '"streamed":7'))
    expect(decoded([...lines.slice(0, -1), wrongIndex])).toBe(
      "message.content.1: refers to the text its request streamed at index 7, and the request streamed none",
    )
    const wrongKind = JSON.parse(JSON.stringify(message).replace('"type":"text","streamed":1', '"type":"text","streamed":0'))
    expect(decoded([...lines.slice(0, -1), wrongKind])).toBe(
      "message.content.1: refers to the text its request streamed at index 0, and the request streamed none",
    )
    const withoutFinish = lines.slice(0, -1).map((line) =>
      line.type === "assistant/chunks"
        ? { ...line, data: { packed: (line.data.packed as Array<{ type: string }>).filter((e) => e.type !== "finish") } }
        : line
    )
    expect(decoded([...withoutFinish, message])).toBe(
      "message.source.replayState: refers to the envelope of its request's finish chunk, and there is none",
    )
    // A delta that is not one (a damaged line a reader skipping settled chunks did not decode): the reference resolves to nothing.
    const damagedDelta = lines.slice(0, -1).map((line) =>
      line.type === "assistant/chunks" ? JSON.parse(JSON.stringify(line).replace('"text":"Reading the notes now, then I answer."', '"text":7')) : line
    )
    expect(decoded([...damagedDelta, message])).toBe(
      "message.content.0: refers to the reasoning its request streamed at index 0, and a chunk of that request is damaged (a delta without its index or text)",
    )
    const call = encoded(turnOf(1)).at(-1)!
    expect(decoded([lines[0]!, lines[1]!, lines[2]!, call])).toBe(
      "refers to the tool-call arguments its request streamed at index 2, and the request streamed none",
    )
  })

  it("rebuilds any message from any split of its deltas into batches", () => {
    const arbitrary = fc.record({
      deltas: fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.string({ unit: "grapheme", maxLength: 12 })), { maxLength: 30 }),
      batch: fc.integer({ min: 1, max: 8 }),
      keep: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    })
    fc.assert(fc.property(arbitrary, ({ batch, deltas, keep }) => {
      const chunks: Array<StreamChunk> = deltas.map(([index, text]) =>
        index === 2
          ? { type: "tool-call-delta", index, id: "c", argumentsDelta: text }
          : index === 1
          ? { type: "reasoning-delta", index, text }
          : { type: "text-delta", index, text }
      )
      const joined = (i: number) => deltas.filter(([index]) => index === i).map(([, text]) => text).join("")
      const tracker = new ChunkBatch.Tracker()
      const batches = []
      for (let at = 0; at < chunks.length; at += batch) batches.push(SessionLog.batchOf(chunks.slice(at, at + batch), tracker))
      // Each block the message's own (kept) or another text.
      const content = [
        { type: "text" as const, text: keep[0] ? joined(0) : `${joined(0)}!` },
        { type: "reasoning" as const, text: keep[1] ? joined(1) : "other thoughts entirely" },
        { type: "tool-call" as const, id: "c", name: "n", arguments: keep[2] ? joined(2) : "{}" },
      ]
      const events = stamped(1, [
        { type: "request/start", data: { provider: "p", model: "m" } },
        ...batches,
        {
          type: "assistant/message",
          data: {
            message: { id: MessageId.make("msg_p"), role: "assistant", content, source: { kind: "model", provider: "p", model: "m" } },
            finish: { kind: "stop" },
          },
        },
      ])
      expect(JSON.stringify(decoded(encoded(events)))).toBe(JSON.stringify(events))
    }))
  })
})

describe("a version-4 log in the JSONL store", () => {
  const withHome = <A, E>(f: (home: string) => Effect.Effect<A, E>) =>
    Effect.suspend(() => {
      const home = mkdtempSync(join(tmpdir(), "turnlog-refs-"))
      return f(home).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
    })

  it.effect("holds each text once; read, open, stream, export and import give the events back as written", () =>
    withHome((home) =>
      Effect.gen(function*() {
        const h = { store: Jsonl.layerJsonl({ home }) }
        const events = [...turnOf(3), ...stamped(turnOf(3).length + 1, [{ type: "turn/end", data: { reason: "completed" } }])]
        const id = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/work" })
            // Three appends (the tool call after its message in one of its own): the writer's state carries from one to the next.
            for (const [from, to] of [[0, 5], [5, 8], [8, events.length]] as const) {
              yield* store.append(id, events.slice(from, to))
              yield* store.flush(id)
            }
            return id
          }))
        const file = join(home, "sessions", `${id}.jsonl`)
        const text = readFileSync(file, "utf8")
        // Each text once in the file (in the batches: the message refers to them).
        for (const part of [TEXT.join(""), REASONING.join(""), JSON.stringify(ARGS.join("")).slice(1, -1)]) expect(text.split(part).length - 1).toBe(1)
        expect(text).toContain('"type":"tool/call","data":{"callId":"call_1","name":"read_file","streamed":2}}')
        expect(text.split('"signature":"sig-1"').length - 1).toBe(1)
        const read = yield* withStore(h, (store) => store.read(id))
        expect(JSON.stringify(read.events)).toBe(JSON.stringify(events))
        const opened = yield* withStore(h, (store) => store.open(id))
        expect(JSON.stringify(opened.events.filter((e) => !SessionLog.isRawChunk(e.type)))).toBe(
          JSON.stringify(events.filter((e) => !SessionLog.isRawChunk(e.type))),
        )
        const streamed = yield* withStore(h, (store) => Stream.runCollect(store.stream(id, 1)))
        expect(JSON.stringify(Chunk.toReadonlyArray(streamed))).toBe(JSON.stringify(events))
        // Exported as the store wrote it; imported back into another home, the same events and the same bytes.
        const exported = LogFormat.encodeHeader(read.header) + LogFormat.encoder(read.header)(read.events)
        expect(exported).toBe(text)
        const session = Either.getOrThrow(LogFormat.decode(Buffer.from(exported), "exported.jsonl"))
        expect(JSON.stringify(session.events)).toBe(JSON.stringify(events))
      })
    ))

  it.effect("refuses a message whose reference has nothing to give, naming the file and line, and keeps the file", () =>
    withHome((home) =>
      Effect.gen(function*() {
        const h = { store: Jsonl.layerJsonl({ home }) }
        const id: SessionId = yield* withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/work" })
            yield* store.append(id, turnOf(1))
            yield* store.flush(id)
            return id
          }))
        const file = join(home, "sessions", `${id}.jsonl`)
        const lines = readFileSync(file, "utf8").split("\n")
        // Line 5 is the batch: without it, the message (line 6, seq 5 now 4) refers to nothing.
        const damaged = [...lines.slice(0, 4), lines[5]!.replace('"seq":5', '"seq":4'), lines[6]!.replace('"seq":6', '"seq":5'), ""].join("\n")
        writeFileSync(file, damaged)
        for (const how of ["read", "open"] as const) {
          const error = yield* Effect.flip(withStore(h, (store) => how === "read" ? store.read(id) : store.open(id)))
          expect(error.message).toBe(
            `${file}:5: message.content.0: refers to the reasoning its request streamed at index 0, and the request streamed none`,
          )
        }
        expect(readFileSync(file, "utf8")).toBe(damaged)
      })
    ))
})
