/**
 * The tuned reconstruction loop (`run` in `src/History.ts`) against the
 * reference (`ReferenceRun.ts`): the same native messages and the same
 * reports, call by call, for any history — with codecs that answer at once
 * and codecs that answer with a running effect, mixed in one history — and
 * for a memo used request after request.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, FastCheck as fc } from "effect"
import { History, InvalidReplayState, type ReplayCodec, type ReplayDiagnostic } from "@turnlog/history"
import { type Message, MessageId, SessionId } from "@turnlog/protocol"
import * as Reference from "./ReferenceRun.js"

const RUNS = { fastCheck: { numRuns: 500 } }

interface Answer {
  readonly usable: boolean
  /** Answered with a completed `Exit`, or with an effect that has to run. */
  readonly completed: boolean
}

const answerOf = (m: Message): Answer => (m.source.kind === "model" ? (m.source.replayState as { readonly response: Answer }).response : undefined) as Answer

const textOf = (m: Message): string => m.content.map((b) => (b.type === "text" ? b.text : b.type)).join("|")

/** Decodes to `native:…`, or refuses with a reason naming the message; what the state says decides how it answers. */
const codec: ReplayCodec<string> = {
  kind: "test",
  decode: (m) => {
    const { usable, completed } = answerOf(m)
    const native = `native:${m.id}:${textOf(m)}`
    const reason = `unusable state of ${m.id}`
    if (completed) return usable ? Exit.succeed(native) : InvalidReplayState.fail(reason)
    return usable ? Effect.sync(() => native) : Effect.suspend(() => Effect.fail(new InvalidReplayState({ reason })))
  },
  foreign: (m) => `foreign:${m.id}:${textOf(m)}`,
}

const message: fc.Arbitrary<Message> = fc.record({
  id: fc.constantFrom("m0", "m1", "m2", "m3", "m4", "m5"),
  role: fc.constantFrom("assistant", "assistant", "assistant", "user"),
  text: fc.constantFrom("a", "b"),
  source: fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom("user", "system") },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.record({ usable: fc.boolean(), completed: fc.boolean() }) },
  ),
}).map(({ id, role, text, source }): Message => ({
  id: MessageId.make(id),
  role: role as Message["role"],
  content: [{ type: "text", text }],
  source: source === "user" || source === "system"
    ? { kind: source }
    : {
      kind: "model",
      provider: "p",
      model: `m-${text}`,
      ...(source === undefined ? {} : { replayState: { response: source } }),
    },
}))

/** A message id appears once in a history, as in a log; across requests the same id comes back, with or without its state. */
const history = fc.uniqueArray(message, { maxLength: 6, selector: (m) => m.id })
const sessionId = fc.constantFrom(undefined, SessionId.make("s1"))

/** Options whose reports are kept, call by call. */
const recording = (id: SessionId | undefined) => {
  const reports: Array<ReadonlyArray<ReplayDiagnostic>> = []
  const options: History.ReconstructOptions = {
    targetRoute: "q/n",
    ...(id === undefined ? {} : { sessionId: id }),
    report: (ds) => Effect.sync(() => void reports.push([...ds])),
  }
  return { reports, options }
}

describe("the tuned reconstruction matches the reference", () => {
  it.prop("on one history, plain", [history, sessionId], ([messages, id]) => {
    const tuned = recording(id)
    const reference = recording(id)
    const out = Effect.runSync(History.reconstruct(messages, codec, tuned.options))
    expect(out).toStrictEqual(Effect.runSync(Reference.reconstruct(messages, codec, reference.options)))
    expect(tuned.reports).toStrictEqual(reference.reports)
  }, RUNS)

  it.prop(
    "on a memo used request after request, by whole histories and by single messages",
    [fc.array(fc.tuple(history, fc.boolean()), { maxLength: 6 }), sessionId],
    ([requests, id]) => {
      const tuned = recording(id)
      const reference = recording(id)
      const memo = History.makeReconstructor(codec)
      const twin = Reference.makeReconstructor(codec)
      for (const [messages, one] of requests) {
        if (one && messages.length > 0) {
          expect(Effect.runSync(memo.message(messages[0]!, tuned.options)))
            .toStrictEqual(Effect.runSync(twin.message(messages[0]!, reference.options)))
        } else {
          expect(Effect.runSync(memo.all(messages, tuned.options)))
            .toStrictEqual(Effect.runSync(twin.all(messages, reference.options)))
        }
        expect(tuned.reports).toStrictEqual(reference.reports)
        expect(memo.size()).toBe(twin.size())
      }
    },
    RUNS,
  )
})
