// The behaviour every SessionStore layer must share. Each layer's test file
// calls `conformance` with a harness; the same assertions run against all three.
import { describe, expect, it } from "@effect/vitest"
import { hostname } from "node:os"
import { Chunk, Context, Duration, Effect, Either, Fiber, Layer, Schedule, Stream } from "effect"
import { ChunkBatch, MessageId, SessionId, SessionLog } from "@turnlog/protocol"
import {
  TOOL_NOT_STARTED,
  TOOL_NOT_STARTED_CONTENT,
  TOOL_OUTCOME_UNKNOWN,
  TOOL_OUTCOME_UNKNOWN_CONTENT,
} from "../../src/OpenTurn.js"
import { type Service, type SessionList, SessionStore } from "../../src/SessionStore.js"
import type { StoreError } from "../../src/StoreError.js"
import {
  assistantWithCalls,
  chunkEvent,
  everyType,
  replayState,
  stamped,
  TIME,
  toolCall,
  toolResult,
  userMessage,
} from "./fixtures.js"
import { createConformance } from "./createConformance.js"

/** One storage for the duration of a test; every build of `store` is a new store over it (a new process). */
export interface Harness {
  readonly store: Layer.Layer<SessionStore, StoreError>
  readonly cleanup?: () => void | Promise<void>
}

/** Runs `f` with a store built over the harness's storage; the store's scope closes after. */
export const withStore = <A, E>(harness: Harness, f: (store: Service) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(Layer.build(harness.store), (context) => f(Context.get(context, SessionStore))))

const seqs = (events: ReadonlyArray<SessionLog.SessionEvent>) => events.map((e) => e.seq)
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

export const conformance = (name: string, makeHarness: () => Harness) =>
  describe(`${name}: SessionStore conformance`, () => {
    const run = <A, E>(f: (harness: Harness) => Effect.Effect<A, E>) =>
      Effect.suspend(() => {
        const harness = makeHarness()
        return f(harness).pipe(Effect.ensuring(Effect.promise(async () => harness.cleanup?.())))
      })

    it.effect("round-trips every event type; replay state byte-identical; optional fields stay omitted", () =>
      run((h) =>
        Effect.gen(function*() {
          const written = stamped(1, everyType)
          const id = yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const id = yield* store.create({ cwd: "/work/project" })
              yield* store.append(id, written.slice(0, 4))
              yield* store.append(id, written.slice(4))
              yield* store.flush(id)
              return id
            }))
          const loaded = yield* withStore(h, (store) => store.read(id))
          expect(loaded.header).toStrictEqual({
            type: "session",
            version: SessionLog.LOG_VERSION,
            id,
            createdAt: loaded.header.createdAt,
            cwd: "/work/project",
          })
          expect("title" in loaded.header).toBe(false)
          expect(JSON.stringify(loaded.events)).toBe(JSON.stringify(written))
          expect(loaded.events).toStrictEqual(written)
          const message = loaded.events[9]!
          if (message.type !== "assistant/message" || message.data.message.source.kind !== "model") {
            throw new Error("expected the assistant message at seq 10")
          }
          expect(JSON.stringify(message.data.message.source.replayState)).toBe(JSON.stringify(replayState))
          const plain = loaded.events[3]!
          expect(Object.keys(plain.data)).toStrictEqual(["provider", "model"])
          expect(loaded.recovery).toStrictEqual({})
        })
      ))

    it.effect("keeps a block streamed over several batches (version 3 on) byte for byte: read, open and stream rebuild its chunks and end", () =>
      run((h) =>
        Effect.gen(function*() {
          const text = ["A long ", "answer ", "in three ", "batches."]
          const tracker = new ChunkBatch.Tracker()
          const written = stamped(1, [
            { type: "turn/start", data: {} },
            userMessage("tell me"),
            { type: "request/start", data: { provider: "p", model: "m" } },
            SessionLog.batchOf([{ type: "block-start", index: 0, blockType: "text" }, { type: "text-delta", index: 0, text: text[0]! }], tracker),
            SessionLog.batchOf([{ type: "text-delta", index: 0, text: text[1]! }, { type: "text-delta", index: 0, text: text[2]! }], tracker),
            SessionLog.batchOf([
              { type: "text-delta", index: 0, text: text[3]! },
              { type: "block-end", index: 0, block: { type: "text", text: text.join("") } },
              { type: "finish", reason: { kind: "stop" } },
            ], tracker),
            {
              type: "assistant/message",
              data: {
                message: {
                  id: MessageId.make("msg_a"),
                  role: "assistant",
                  content: [{ type: "text", text: text.join("") }],
                  source: { kind: "model", provider: "p", model: "m" },
                },
                finish: { kind: "stop" },
              },
            },
            { type: "turn/end", data: { reason: "completed" } },
          ])
          const last = written[5]!
          expect(last.type === "assistant/chunks" ? last.data.entries[1] : undefined).toStrictEqual({ type: "block-end-streamed", index: 0 })
          const id = yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const id = yield* store.create({ cwd: "/work/project" })
              yield* store.append(id, written)
              yield* store.flush(id)
              return id
            }))
          const loaded = yield* withStore(h, (store) => store.read(id))
          expect(loaded.header.version).toBe(4)
          expect(JSON.stringify(loaded.events)).toBe(JSON.stringify(written))
          expect(SessionLog.chunksIn(loaded.events).filter((c) => c.type === "block-end")).toStrictEqual([
            { type: "block-end", index: 0, block: { type: "text", text: "A long answer in three batches." } },
          ])
          const streamed = yield* withStore(h, (store) => Stream.runCollect(store.stream(id, 1)))
          expect(JSON.stringify(Chunk.toReadonlyArray(streamed))).toBe(JSON.stringify(written))
          // Continuing needs the message, not the settled batches.
          const opened = yield* withStore(h, (store) => store.open(id))
          expect(opened.events.map((e) => e.seq)).toStrictEqual([1, 2, 3, 7, 8])
        })
      ))

    it.effect("gives contiguous seq and rejects a stale or gapped batch with StaleWriter", () =>
      run((h) =>
        withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/p" })
            const first = yield* Effect.either(store.append(id, [chunkEvent(2)]))
            expect(first).toStrictEqual(Either.left(expect.objectContaining({ _tag: "StaleWriter", expectedSeq: 1, gotSeq: 2 })))
            yield* store.append(id, [chunkEvent(1), chunkEvent(2), chunkEvent(3)])
            const repeated = yield* Effect.flip(store.append(id, [chunkEvent(3)]))
            expect(repeated).toMatchObject({ _tag: "StaleWriter", sessionId: id, expectedSeq: 4, gotSeq: 3 })
            const gapped = yield* Effect.flip(store.append(id, [chunkEvent(4), chunkEvent(6)]))
            expect(gapped).toMatchObject({ _tag: "StaleWriter", expectedSeq: 5, gotSeq: 6 })
            yield* store.append(id, [chunkEvent(4), chunkEvent(5)])
            yield* store.flush(id)
            const loaded = yield* store.read(id)
            expect(seqs(loaded.events)).toStrictEqual([1, 2, 3, 4, 5])
          }))
      ))

    it.effect("a second store over the same storage continues the seq and rejects a stale batch", () =>
      run((h) =>
        Effect.gen(function*() {
          const id = yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const id = yield* store.create({ cwd: "/p" })
              yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, { type: "turn/end", data: { reason: "completed" } }]))
              return id
            }))
          yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const stale = yield* Effect.flip(store.append(id, [chunkEvent(1)]))
              expect(stale).toMatchObject({ _tag: "StaleWriter", expectedSeq: 3, gotSeq: 1 })
              yield* store.append(id, [chunkEvent(3)])
            }))
          const loaded = yield* withStore(h, (store) => store.read(id))
          expect(seqs(loaded.events)).toStrictEqual([1, 2, 3])
        })
      ))

    it.effect("closes an open turn at open: a result for each call without one, then turn/end interrupted", () =>
      run((h) =>
        Effect.gen(function*() {
          const written = stamped(1, [
            { type: "turn/start", data: {} },
            userMessage("do three things"),
            assistantWithCalls(["call_started", "call_never", "call_done"]),
            toolCall("call_done"),
            toolResult("call_done"),
            toolCall("call_started"),
          ])
          // The writer stops mid-turn: its scope closes with the turn open.
          const id = yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const id = yield* store.create({ cwd: "/p" })
              yield* store.append(id, written)
              yield* store.flush(id)
              return id
            }))

          const found = yield* withStore(h, (store) => store.read(id))
          expect(found.events).toStrictEqual(written)
          expect(found.recovery).toStrictEqual({ openTurn: { seq: 1 } })

          const opened = yield* withStore(h, (store) => store.open(id))
          const closed = opened.recovery.closedTurn ?? []
          expect(closed.map((e) => [e.seq, e.type])).toStrictEqual([
            [7, "tool/result"],
            [8, "tool/result"],
            [9, "turn/end"],
          ])
          const [started, never, end] = closed
          expect(started).toMatchObject({
            data: {
              code: TOOL_OUTCOME_UNKNOWN,
              message: {
                role: "user",
                content: [{ type: "tool-result", toolCallId: "call_started", content: TOOL_OUTCOME_UNKNOWN_CONTENT, isError: true }],
                source: { kind: "tool", callId: "call_started" },
              },
            },
          })
          expect(never).toMatchObject({
            data: {
              code: TOOL_NOT_STARTED,
              message: { content: [{ toolCallId: "call_never", content: TOOL_NOT_STARTED_CONTENT, isError: true }] },
            },
          })
          expect(end).toMatchObject({ type: "turn/end", data: { reason: "interrupted" } })
          expect(Object.keys(end!.data)).toStrictEqual(["reason"])
          expect(opened.events).toStrictEqual([...written, ...closed])

          // Durable: a later process sees the closed turn and recovers nothing more.
          const again = yield* withStore(h, (store) => store.open(id))
          expect(again.events).toStrictEqual([...written, ...closed])
          expect(again.recovery).toStrictEqual({})
        })
      ))

    it.effect("closes an open turn without tool calls with turn/end interrupted only", () =>
      run((h) =>
        Effect.gen(function*() {
          const id = yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const id = yield* store.create({ cwd: "/p" })
              yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("hi")]))
              return id
            }))
          const opened = yield* withStore(h, (store) => store.open(id))
          expect(opened.recovery.closedTurn?.map((e) => [e.seq, e.type])).toStrictEqual([[3, "turn/end"]])
        })
      ))

    it.effect("does not close the turn a store is writing when it opens its own session again", () =>
      run((h) =>
        withStore(h, (store) =>
          Effect.gen(function*() {
            const id = yield* store.create({ cwd: "/p" })
            yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, assistantWithCalls(["c1"])]))
            const opened = yield* store.open(id)
            expect(seqs(opened.events)).toStrictEqual([1, 2])
            expect(opened.recovery.closedTurn).toBeUndefined()
            yield* store.append(id, stamped(3, [toolCall("c1")]))
          }))
      ))

    it.effect("lists sessions with events, most recently updated first, with turns and titles", () =>
      run((h) =>
        Effect.gen(function*() {
          const ids = yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const titled = yield* store.create({ cwd: "/a", title: "Given title" })
              const untitled = yield* store.create({ cwd: "/b" })
              const empty = yield* store.create({ cwd: "/c" })
              yield* store.append(titled, SessionLog.stamp(1, [{ type: "turn/start", data: {} }, userMessage("ignored")], "2025-01-01T00:00:00.000Z"))
              yield* store.append(
                untitled,
                SessionLog.stamp(1, [
                  { type: "turn/start", data: {} },
                  userMessage("  Refactor   the\nparser so that it streams tokens instead of buffering the whole input"),
                  { type: "turn/end", data: { reason: "completed" } },
                  { type: "turn/start", data: {} },
                  userMessage("second"),
                ], "2025-01-03T00:00:00.000Z"),
              )
              yield* store.append(titled, SessionLog.stamp(3, [{ type: "turn/end", data: { reason: "completed" } }], "2025-01-02T00:00:00.000Z"))
              return { titled, untitled, empty }
            }))
          const { sessions: listed, unreadable } = yield* withStore(h, (store) => store.list())
          expect(unreadable).toStrictEqual([])
          expect(listed).toStrictEqual([
            {
              id: ids.untitled,
              cwd: "/b",
              createdAt: expect.any(String),
              updatedAt: "2025-01-03T00:00:00.000Z",
              turns: 2,
              title: "Refactor the parser so that it streams tokens instead of bu…",
              // Its last turn has no end, and the store that wrote it is gone.
              status: "interrupted",
            },
            {
              id: ids.titled,
              cwd: "/a",
              createdAt: expect.any(String),
              updatedAt: "2025-01-02T00:00:00.000Z",
              turns: 1,
              title: "Given title",
              status: "idle",
            },
          ])
        })
      ))

    it.effect("lists a session whose turn is open as running while a store holds it, interrupted once none does", () =>
      run((h) =>
        Effect.gen(function*() {
          const statuses = (list: SessionList) => list.sessions.map((s) => s.status)
          const id = yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const id = yield* store.create({ cwd: "/p" })
              yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("working")]))
              // The writer itself, and another store (another process) while the writer holds it.
              expect(statuses(yield* store.list())).toStrictEqual(["running"])
              expect(statuses(yield* withStore(h, (other) => other.list()))).toStrictEqual(["running"])
              return id
            }))
          expect(statuses(yield* withStore(h, (store) => store.list()))).toStrictEqual(["interrupted"])
          // Opening it closes the turn: idle from then on.
          yield* withStore(h, (store) => store.open(id))
          expect(statuses(yield* withStore(h, (store) => store.list()))).toStrictEqual(["idle"])
        })
      ))

    it.effect("unknown sessions are SessionNotFound; a created session is durable before its first append, and not listed", () =>
      run((h) =>
        Effect.gen(function*() {
          const missing = "20250101T000000-deadbeef" as SessionId
          const id = yield* withStore(h, (store) =>
            Effect.gen(function*() {
              expect(yield* Effect.flip(store.read(missing))).toMatchObject({ _tag: "SessionNotFound", sessionId: missing })
              expect(yield* Effect.flip(store.open(missing))).toMatchObject({ _tag: "SessionNotFound", sessionId: missing })
              expect(yield* Effect.flip(store.append(missing, [chunkEvent(1)]))).toMatchObject({ _tag: "SessionNotFound" })
              const id = yield* store.create({ cwd: "/p", title: "Kept" })
              const own = yield* store.read(id)
              expect(own.events).toStrictEqual([])
              // Another store (another process) reads it while this one holds it.
              const other = yield* withStore(h, (second) => second.read(id))
              expect(other).toStrictEqual({
                header: { type: "session", version: SessionLog.LOG_VERSION, id, createdAt: own.header.createdAt, cwd: "/p", title: "Kept" },
                events: [],
                recovery: {},
              })
              expect(yield* store.list()).toStrictEqual({ sessions: [], unreadable: [] })
              return id
            }))
          // The creator is gone: another store opens the header-only session and writes its first turn.
          const opened = yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const opened = yield* store.open(id)
              yield* store.append(id, stamped(1, [{ type: "turn/start", data: {} }, userMessage("first")]))
              return opened
            }))
          expect(opened).toMatchObject({ header: { id, cwd: "/p", title: "Kept" }, events: [], recovery: {} })
          const read = yield* withStore(h, (store) => store.read(id))
          expect(read.events.map((e) => e.type)).toStrictEqual(["turn/start", "user/message"])
        })
      ))

    it.effect("create with a chosen id takes one nothing holds or stores, and refuses a held or stored one", () =>
      run((h) =>
        Effect.gen(function*() {
          const chosen = "20250101T000000-c0ffee00" as SessionId
          yield* withStore(h, (store) =>
            Effect.gen(function*() {
              expect(yield* store.create({ cwd: "/q", id: chosen })).toBe(chosen)
              expect((yield* store.open(chosen)).header).toMatchObject({ id: chosen, cwd: "/q" })
              const held = yield* Effect.flip(store.create({ cwd: "/q", id: chosen }))
              expect(held.message).toBe(`create ${chosen}: session ${chosen} already exists`)
            }))
          // Stored with its header only: refused all the same.
          const refused = yield* Effect.flip(withStore(h, (store) => store.create({ cwd: "/r", id: chosen })))
          expect(refused).toMatchObject({ _tag: "StoreIOError", operation: "create" })
          expect(refused.message).toBe(`create ${chosen}: session ${chosen} already exists`)
          // Refusing took nothing: the stored session opens as it was.
          const opened = yield* withStore(h, (store) => store.open(chosen))
          expect(opened.header.cwd).toBe("/q")
          expect(opened.events).toStrictEqual([])
        })
      ))

    createConformance(run)

    it.effect("one writer: a second store gets SessionLocked until the first releases", () =>
      run((h) =>
        withStore(h, (first) =>
          Effect.gen(function*() {
            const id = yield* first.create({ cwd: "/p" })
            yield* first.append(id, [chunkEvent(1)])
            yield* first.flush(id)
            yield* withStore(h, (second) =>
              Effect.gen(function*() {
                const locked = yield* Effect.flip(second.open(id))
                expect(locked).toMatchObject({ _tag: "SessionLocked", sessionId: id, holder: { host: hostname(), pid: process.pid } })
                expect(locked.message).toBe(`session ${id} is open for writing on host ${hostname()} by process ${process.pid}`)
                expect(yield* Effect.flip(second.append(id, [chunkEvent(2)]))).toMatchObject({ _tag: "SessionLocked" })
                // Reading needs no lease.
                expect(seqs((yield* second.read(id)).events)).toStrictEqual([1])
                yield* first.append(id, [chunkEvent(2)])
                yield* first.release(id)
                const opened = yield* second.open(id)
                expect(seqs(opened.events)).toStrictEqual([1, 2])
              }))
          }))
      ))

    it.effect("holds a 100,000-event session", () =>
      run((h) =>
        Effect.gen(function*() {
          const count = 100_000
          const id = yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const id = yield* store.create({ cwd: "/big" })
              for (let seq = 1; seq <= count; seq += 1000) {
                yield* store.append(id, range(seq, seq + 999).map((s) => chunkEvent(s)))
                yield* store.flush(id)
              }
              return id
            }))
          const loaded = yield* withStore(h, (store) => store.open(id))
          expect(loaded.events.length).toBe(count)
          expect(loaded.events.every((event, i) => event.seq === i + 1)).toBe(true)
          expect(loaded.events[count - 1]).toStrictEqual(chunkEvent(count))
          expect(loaded.recovery).toStrictEqual({})
          expect(loaded.events[0]!.time).toBe(TIME)
        })
      ))

    it.effect("stream gives what read gives, a page at a time, from any seq; header and recovery without the events", () =>
      run((h) =>
        Effect.gen(function*() {
          const written = [...stamped(1, everyType), ...range(15, 1234).map((s) => chunkEvent(s))]
          const id = yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const id = yield* store.create({ cwd: "/streamed", title: "t" })
              yield* store.append(id, written)
              yield* store.flush(id)
              return id
            }))
          yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const all = Chunk.toReadonlyArray(yield* Stream.runCollect(store.stream(id, 1)))
              expect(JSON.stringify(all)).toBe(JSON.stringify(written))
              const late = Chunk.toReadonlyArray(yield* Stream.runCollect(store.stream(id, 1000)))
              expect(seqs(late)).toStrictEqual(range(1000, 1234))
              expect(Chunk.size(yield* Stream.runCollect(store.stream(id, 1235)))).toBe(0)
              const header = yield* store.header(id)
              expect(header).toStrictEqual((yield* store.read(id)).header)
              expect(header.title).toBe("t")
              const seen: Array<SessionLog.SessionEvent> = []
              expect(yield* store.recovery(id, (event) => void seen.push(event))).toStrictEqual({})
              // The recovery's pass gives every event, as the stream does.
              expect(JSON.stringify(seen)).toBe(JSON.stringify(written))
              const missing = yield* Effect.flip(Stream.runDrain(store.stream(SessionId.make("no-such-session"), 1)))
              expect(missing._tag).toBe("SessionNotFound")
              expect((yield* Effect.flip(store.header(SessionId.make("no-such-session"))))._tag).toBe("SessionNotFound")
            }))
          // A turn left open is reported as read reports it; the writer's own store sees its unflushed events.
          yield* withStore(h, (store) =>
            Effect.gen(function*() {
              yield* store.open(id)
              yield* store.append(id, stamped(1235, [{ type: "turn/start", data: {} }, userMessage("again")]))
              const tail = Chunk.toReadonlyArray(yield* Stream.runCollect(store.stream(id, 1234)))
              expect(seqs(tail)).toStrictEqual([1234, 1235, 1236])
              const recovery = yield* store.recovery(id)
              expect(recovery).toStrictEqual((yield* store.read(id)).recovery)
              expect(recovery.openTurn?.seq).toBe(1235)
            }))
        })
      ))

    it.live("follow sees another store's flushes once each, in order, from any seq, and waits for more", () =>
      run((h) =>
        Effect.gen(function*() {
          const id = yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const id = yield* store.create({ cwd: "/followed" })
              yield* store.append(id, range(1, 700).map((s) => chunkEvent(s)))
              yield* store.flush(id)
              return id
            }))
          yield* withStore(h, (reader) =>
            withStore(h, (writer) =>
              Effect.gen(function*() {
                const seen: Array<number> = []
                const follower = yield* Effect.fork(
                  Stream.runForEach(reader.follow(id, 650), (event) => Effect.sync(() => void seen.push(event.seq))),
                )
                const until = (n: number) =>
                  Effect.suspend(() => (seen.length >= n ? Effect.void : Effect.fail("waiting"))).pipe(
                    Effect.retry(Schedule.spaced(Duration.millis(20))),
                    Effect.timeout(Duration.seconds(30)),
                  )
                yield* until(51)
                yield* writer.open(id)
                for (const from of [701, 704, 1004]) {
                  const to = from === 704 ? 1003 : from + 2
                  yield* writer.append(id, range(from, to).map((s) => chunkEvent(s)))
                  yield* writer.flush(id)
                  yield* until(to - 649)
                }
                // Nothing more comes, and nothing came twice.
                yield* Effect.sleep(Duration.millis(600))
                expect(seen).toStrictEqual(range(650, 1006))
                expect(follower.unsafePoll()).toBe(null)
                yield* Fiber.interrupt(follower)
              })))
        })
      ), 60_000)
  })
