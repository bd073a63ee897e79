/**
 * `ReconstructOptions.report` receives the diagnostics of one reconstruction
 * at once, in message order — also from a codec whose answers are partly
 * completed `Exit`s (read in the loop) and partly running effects (resolved
 * after it), which the codec contract allows.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { type Message, MessageId, SessionId } from "@turnlog/protocol"
import { History, InvalidReplayState, type ReplayCodec, type ReplayDiagnostic } from "@turnlog/history"

const assistant = (id: string, replayState: unknown): Message => ({
  id: MessageId.make(id),
  role: "assistant",
  content: [{ type: "text", text: id }],
  source: { kind: "model", provider: "acme", model: "m1", replayState },
})

type Native = { readonly via: "native" | "foreign"; readonly id: string }

// State `{sync: true}` fails with a completed Exit; any other state with a running effect.
const codec: ReplayCodec<Native> = {
  kind: "toy",
  decode: (m) => {
    const state = m.source.kind === "model" ? m.source.replayState as { sync?: boolean } : undefined
    const error = new InvalidReplayState({ reason: `unusable ${m.id}` })
    return state?.sync === true ? Exit.fail(error) : Effect.fail(error)
  },
  foreign: (m) => ({ via: "foreign", id: m.id }),
}

describe("History.reconstruct: diagnostics of a mixed codec", () => {
  it.effect("are reported once, in message order", () =>
    Effect.gen(function*() {
      const calls: Array<ReadonlyArray<string>> = []
      const options: History.ReconstructOptions = {
        targetRoute: "acme/m1",
        sessionId: SessionId.make("s1"),
        report: (ds: ReadonlyArray<ReplayDiagnostic>) => Effect.sync(() => void calls.push(ds.map((d) => d.messageId))),
      }
      const natives = yield* History.reconstruct(
        [assistant("a1", { sync: true }), assistant("a2", { sync: false }), assistant("a3", { sync: true })],
        codec,
        options,
      )
      expect(natives.map((n) => n.id)).toEqual(["a1", "a2", "a3"])
      expect(calls).toEqual([["a1", "a2", "a3"]])
    }))

  it.effect("interleaved either way, with usable messages between", () =>
    Effect.gen(function*() {
      const calls: Array<ReadonlyArray<string>> = []
      const report = (ds: ReadonlyArray<ReplayDiagnostic>) => Effect.sync(() => void calls.push(ds.map((d) => d.messageId)))
      const usable: Message = { ...assistant("ok", undefined), source: { kind: "model", provider: "acme", model: "m1" } }
      const natives = yield* History.reconstruct(
        [
          assistant("a1", { sync: false }),
          usable,
          assistant("a2", { sync: true }),
          assistant("a3", { sync: false }),
          assistant("a4", { sync: false }),
          assistant("a5", { sync: true }),
        ],
        codec,
        { targetRoute: "acme/m1", report },
      )
      expect(natives.map((n) => [n.id, n.via])).toEqual([
        ["a1", "foreign"],
        ["ok", "foreign"],
        ["a2", "foreign"],
        ["a3", "foreign"],
        ["a4", "foreign"],
        ["a5", "foreign"],
      ])
      expect(calls).toEqual([["a1", "a2", "a3", "a4", "a5"]])
    }))
})
