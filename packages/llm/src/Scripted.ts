/**
 * The scripted adapter, for keyless runs, the demo and tests of everything
 * above the adapter: call N plays the N-th scripted call and records the
 * request. A call beyond the script ends in an error finish, like any
 * provider failure. A script is a list of calls or a function answering each
 * request; `layerReplaying` first reconstructs each request's history with a
 * replay codec, so stored replay state replays or degrades with its
 * diagnostic exactly as it would before a real request.
 */
import { Effect, Layer, Ref, Schema, Stream } from "effect"
import { History, type ReplayCodec } from "@turnlog/history"
import { StreamChunk } from "@turnlog/protocol"
import { LlmAdapter, type LlmRequest, type ModelInfo, type Service } from "./LlmAdapter.js"
import { ReplayDiagnostics } from "./ReplayDiagnostics.js"

/** One provider call: its chunks, played in order. */
export const ScriptedCall = Schema.Struct({
  chunks: Schema.Array(StreamChunk),
  /** A pause before each chunk, so a test can cancel mid-stream. */
  delayMs: Schema.optionalWith(Schema.Number.pipe(Schema.nonNegative()), { exact: true }),
  /** The call stays open after its chunks until it is cancelled (mid-stream without racing a clock). */
  stall: Schema.optionalWith(Schema.Boolean, { exact: true }),
})
export type ScriptedCall = typeof ScriptedCall.Type

/** A call, or just its chunks. */
export type ScriptStep = ReadonlyArray<StreamChunk> | ScriptedCall

/** The call-th answer (from 0) to `request`, or `undefined` when the script has none. */
export type Respond = (request: LlmRequest, call: number) => ScriptStep | undefined

export type Script = ReadonlyArray<ScriptStep> | Respond

export interface Options {
  /** The model facts every route answers with (absent: none, so the loop never compacts). */
  readonly modelInfo?: ModelInfo
  /** Runs before each call is counted and played (the replay check of `layerReplaying`). */
  readonly beforeCall?: (request: LlmRequest) => Effect.Effect<void>
}

const normalize = (step: ScriptStep): ScriptedCall => ("chunks" in step ? step : { chunks: step })

const exhausted = (call: number): StreamChunk => ({
  type: "finish",
  reason: {
    kind: "error",
    failure: { code: "SCRIPT_EXHAUSTED", message: `the scripted model has no response for call ${call + 1}` },
  },
})

/** What one scripted call streams. */
export const play = (call: ScriptedCall): Stream.Stream<StreamChunk> => {
  const chunks: Stream.Stream<StreamChunk> = Stream.fromIterable(call.chunks)
  const paced = call.delayMs === undefined ? chunks : chunks.pipe(Stream.tap(() => Effect.sleep(call.delayMs!)))
  return call.stall === true ? Stream.concat(paced, Stream.never) : paced
}

export const make = (script: Script, options: Options = {}) =>
  Effect.gen(function*() {
    const respond: Respond = typeof script === "function" ? script : (_, n) => script[n]
    const requests = yield* Ref.make<ReadonlyArray<LlmRequest>>([])
    const stream = (request: LlmRequest): Stream.Stream<StreamChunk> =>
      Stream.unwrap(Effect.gen(function*() {
        if (options.beforeCall !== undefined) yield* options.beforeCall(request)
        const n = yield* Ref.modify(requests, (all) => [all.length, [...all, request]] as const)
        const step = respond(request, n)
        return step === undefined ? Stream.make(exhausted(n)) : play(normalize(step))
      }))
    const info = options.modelInfo
    const adapter: Service = info === undefined ? { stream } : { stream, modelInfo: () => info }
    return { adapter, requests: Ref.get(requests) } as const
  })

export const layerScripted = (script: Script, options: Options = {}): Layer.Layer<LlmAdapter> =>
  Layer.effect(LlmAdapter, Effect.map(make(script, options), (s) => s.adapter))

/** The scripted adapter behind a read side: each request's history is reconstructed with `codec` first. */
export const layerReplaying = <Native>(
  script: Script,
  codec: ReplayCodec<Native>,
  options: Omit<Options, "beforeCall"> = {},
): Layer.Layer<LlmAdapter, never, ReplayDiagnostics> =>
  Layer.effect(
    LlmAdapter,
    Effect.gen(function*() {
      const diagnostics = yield* ReplayDiagnostics
      const reconstructor = History.makeReconstructor(codec)
      const beforeCall = (request: LlmRequest) =>
        Effect.asVoid(reconstructor.all(request.messages, {
          targetRoute: `${request.provider}/${request.model}`,
          ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
          report: diagnostics.report,
        }))
      return (yield* make(script, { ...options, beforeCall })).adapter
    }),
  )
