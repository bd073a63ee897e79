/**
 * The model that runs without a provider key: scripted responses, played as
 * the `LlmAdapter` streams them, behind the same read side a real provider
 * request goes through. Each request's history is reconstructed with the
 * pi-ai codec first, so stored replay state replays natively or degrades with
 * its diagnostic exactly as it would before a real request: the keyless path
 * exercises assembly, persistence and reconstruction, only the wire is missing.
 */
import { Effect, Layer, Ref, Stream } from "effect"
import { History } from "@turnlog/history"
import { LlmAdapter, ReplayDiagnostics } from "@turnlog/llm"
import * as PiAiReplay from "@turnlog/llm-pi-ai/PiAiReplay"
import type { StreamChunk } from "@turnlog/protocol"
import type { ScriptCall } from "./ScriptFile.js"

/** The call-th response (from 0) to `request`, or `undefined` when the script has none. */
export type Respond = (request: LlmAdapter.LlmRequest, call: number) => ScriptCall | undefined

const exhausted = (call: number): StreamChunk => ({
  type: "finish",
  reason: {
    kind: "error",
    failure: { code: "SCRIPT_EXHAUSTED", message: `the scripted model has no response for call ${call + 1}` },
  },
})

const play = (call: ScriptCall): Stream.Stream<StreamChunk> => {
  const chunks = Stream.fromIterable(call.chunks)
  const paced = call.delayMs === undefined ? chunks : chunks.pipe(Stream.tap(() => Effect.sleep(call.delayMs!)))
  // A stalled call stays open until the turn is cancelled (the stream is interrupted).
  return call.stall === true ? Stream.concat(paced, Stream.never) : paced
}

export const make = (respond: Respond) =>
  Effect.gen(function*() {
    const diagnostics = yield* ReplayDiagnostics.ReplayDiagnostics
    const reconstructor = History.makeReconstructor(PiAiReplay.codec)
    const calls = yield* Ref.make(0)
    const stream = (request: LlmAdapter.LlmRequest): Stream.Stream<StreamChunk> =>
      Stream.unwrap(Effect.gen(function*() {
        yield* reconstructor.all(request.messages, {
          targetRoute: `${request.provider}/${request.model}`,
          ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
          report: diagnostics.report,
        })
        const n = yield* Ref.getAndUpdate(calls, (c) => c + 1)
        const call = respond(request, n)
        return call === undefined ? Stream.make(exhausted(n)) : play(call)
      }))
    return { stream } satisfies LlmAdapter.Service
  })

export const layer = (respond: Respond): Layer.Layer<LlmAdapter.LlmAdapter, never, ReplayDiagnostics.ReplayDiagnostics> =>
  Layer.effect(LlmAdapter.LlmAdapter, make(respond))

/** Plays a fixed script, call by call. */
export const layerScript = (calls: ReadonlyArray<ScriptCall>) => layer((_, n) => calls[n])
