import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import { CallId, makeToolResult, type Message, MessageId, SessionId, SessionLog } from "@turnlog/protocol"
import { History, InvalidReplayState, type ReplayCodec, type ReplayDiagnostic, SHARED_REASONS } from "@turnlog/history"

const user = (id: string, text: string): Message => ({
  id: MessageId.make(id),
  role: "user",
  content: [{ type: "text", text }],
  source: { kind: "user" },
})

const assistant = (id: string, text: string, replayState?: unknown): Message => ({
  id: MessageId.make(id),
  role: "assistant",
  content: text === "" ? [] : [{ type: "text", text }],
  source: {
    kind: "model",
    provider: "acme",
    model: "m1",
    ...(replayState === undefined ? {} : { replayState }),
  },
})

type Native = { readonly via: "native" | "foreign"; readonly id: string }

/** A toy codec: state `{ok: true}` decodes, anything else is unusable. */
const makeCodec = (mode: "sync" | "async" = "sync") => {
  const decoded: Array<string> = []
  const codec: ReplayCodec<Native> = {
    kind: "toy",
    decode: (m) => {
      decoded.push(m.id)
      const state = m.source.kind === "model" ? m.source.replayState : undefined
      const ok = typeof state === "object" && state !== null && (state as { ok?: unknown }).ok === true
      const error = new InvalidReplayState({ reason: `unusable state ${JSON.stringify(state)}` })
      const native: Native = { via: "native", id: m.id }
      // sync: completed Exit values (the fast path); async: effects that must run
      return mode === "sync"
        ? (ok ? Exit.succeed(native) : Exit.fail(error))
        : Effect.zipRight(Effect.yieldNow(), ok ? Effect.succeed(native) : Effect.fail(error))
    },
    foreign: (m) => ({ via: "foreign", id: m.id }),
  }
  return { codec, decoded }
}

const collecting = () => {
  const seen: Array<ReplayDiagnostic> = []
  const options: History.ReconstructOptions = {
    targetRoute: "other/m2",
    sessionId: SessionId.make("s1"),
    report: (ds) => Effect.sync(() => void seen.push(...ds)),
  }
  return { seen, options }
}

describe("History.fromEvents", () => {
  it("keeps user messages, assistant messages with content and tool results, in log order", () => {
    const state = { response: { kind: "pi-ai", version: 2 }, blocks: [{ type: "text" }] }
    const a1 = assistant("a1", "hello", state)
    const toolResult = makeToolResult({ id: MessageId.make("t1"), callId: "call-1", content: "ok" })
    const events = SessionLog.stamp(1, [
      { type: "turn/start", data: {} },
      { type: "user/message", data: { message: user("u1", "hi") } },
      { type: "request/start", data: { provider: "acme", model: "m1" } },
      { type: "assistant/chunk", data: { chunk: { type: "text-delta", index: 0, text: "hello" } } },
      { type: "assistant/message", data: { message: a1, finish: { kind: "tool-calls" } } },
      { type: "tool/call", data: { callId: "call-1", name: "read_file", arguments: "{}" } },
      { type: "tool/result", data: { message: toolResult } },
      { type: "assistant/message", data: { message: assistant("a2", ""), finish: { kind: "max-tokens" } } },
      { type: "turn/end", data: { reason: "max-tokens" } },
    ])
    const messages = History.fromEvents(events)
    expect(messages.map((m) => m.id)).toEqual(["u1", "a1", "t1"])
    // replay state goes on exactly as stored
    expect(messages[1]!.source).toEqual({ kind: "model", provider: "acme", model: "m1", replayState: state })
    expect(messages[2]!.source).toEqual({ kind: "tool", callId: CallId.make("call-1") })
  })
})

describe("History.reconstruct", () => {
  it.effect("decodes usable state, converts stateless messages foreign, degrades unusable state with one diagnostic", () =>
    Effect.gen(function*() {
      const { codec, decoded } = makeCodec()
      const { seen, options } = collecting()
      const natives = yield* History.reconstruct(
        [user("u1", "hi"), assistant("a1", "x", { ok: true }), assistant("a2", "y"), assistant("a3", "z", { ok: false })],
        codec,
        options,
      )
      expect(natives).toEqual([
        { via: "native", id: "a1" },
        { via: "foreign", id: "a2" },
        { via: "foreign", id: "a3" },
      ])
      // a message without replay state is never handed to decode
      expect(decoded).toEqual(["a1", "a3"])
      expect(seen).toEqual([{
        code: "INVALID_REPLAY_STATE",
        sessionId: "s1",
        messageId: "a3",
        historicalRoute: "acme/m1",
        targetRoute: "other/m2",
        reason: 'unusable state {"ok":false}',
      }])
    }))

  it.effect("gives the same answers when the codec answers asynchronously", () =>
    Effect.gen(function*() {
      const { codec } = makeCodec("async")
      const { seen, options } = collecting()
      const natives = yield* History.reconstruct(
        [assistant("a1", "x", { ok: false }), assistant("a2", "y", { ok: true }), assistant("a3", "z")],
        codec,
        options,
      )
      expect(natives).toEqual([
        { via: "foreign", id: "a1" },
        { via: "native", id: "a2" },
        { via: "foreign", id: "a3" },
      ])
      expect(seen.map((d) => d.messageId)).toEqual(["a1"])
    }))

  it.effect("lets every other failure propagate", () =>
    Effect.gen(function*() {
      const codec: ReplayCodec<Native> = {
        kind: "toy",
        decode: () => Effect.die(new Error("codec bug")),
        foreign: (m) => ({ via: "foreign", id: m.id }),
      }
      const { options } = collecting()
      const exit = yield* Effect.exit(History.reconstruct([assistant("a1", "x", { ok: true })], codec, options))
      expect(exit._tag).toBe("Failure")
    }))
})

describe("History.makeReconstructor", () => {
  it.effect("decodes each message once per session and reports its diagnostic once", () =>
    Effect.gen(function*() {
      const { codec, decoded } = makeCodec()
      const { seen, options } = collecting()
      const reconstructor = History.makeReconstructor(codec)
      const history = [user("u1", "hi"), assistant("a1", "x", { ok: false }), assistant("a2", "y", { ok: true })]
      yield* reconstructor.all(history, options)
      const grown = [...history, user("u2", "more"), assistant("a3", "z", { ok: true })]
      const natives = yield* reconstructor.all(grown, options)
      expect(natives.map((n) => `${n.via}:${n.id}`)).toEqual(["foreign:a1", "native:a2", "native:a3"])
      expect(decoded).toEqual(["a1", "a2", "a3"])
      expect(seen.map((d) => d.messageId)).toEqual(["a1"])
      expect(reconstructor.size()).toBe(3)
      // the single-message form shares the memo
      expect(yield* reconstructor.message(grown[1]!, options)).toEqual({ via: "foreign", id: "a1" })
      expect(decoded).toHaveLength(3)
    }))
})

describe("InvalidReplayState.fail", () => {
  it.effect("is one shared completed failure per reason, recoverable by tag, and each degraded message still gets its own diagnostic", () =>
    Effect.gen(function*() {
      const legacy = InvalidReplayState.fail("legacy state")
      expect(InvalidReplayState.fail("legacy state")).toBe(legacy)
      expect(InvalidReplayState.fail("another reason")).not.toBe(legacy)
      expect(Exit.isFailure(legacy) && Cause.failureOption(legacy.cause)).toEqual(
        Option.some(new InvalidReplayState({ reason: "legacy state" })),
      )
      // as an effect, recovered by its tag like any other failure
      expect(yield* Effect.catchTag(legacy, "InvalidReplayState", (e) => Effect.succeed(e.reason))).toBe("legacy state")

      const codec: ReplayCodec<Native> = {
        kind: "toy",
        decode: () => InvalidReplayState.fail("legacy state"),
        foreign: (m) => ({ via: "foreign", id: m.id }),
      }
      const { seen, options } = collecting()
      const natives = yield* History.reconstruct([assistant("a1", "x", {}), assistant("a2", "y", {})], codec, options)
      expect(natives).toEqual([{ via: "foreign", id: "a1" }, { via: "foreign", id: "a2" }])
      expect(seen.map((d) => [d.messageId, d.reason])).toEqual([["a1", "legacy state"], ["a2", "legacy state"]])
    }))

  it("stops sharing past SHARED_REASONS distinct reasons, still answering each with its reason", () => {
    for (let i = 0; i < SHARED_REASONS + 10; i++) InvalidReplayState.fail(`reason ${i}`)
    const late = InvalidReplayState.fail("a reason first seen late")
    expect(InvalidReplayState.fail("a reason first seen late")).not.toBe(late)
    expect(Exit.isFailure(late) && Cause.failureOption(late.cause)).toEqual(
      Option.some(new InvalidReplayState({ reason: "a reason first seen late" })),
    )
  })
})
