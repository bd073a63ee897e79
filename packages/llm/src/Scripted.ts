/**
 * A scripted adapter for keyless runs and tests of everything above the
 * adapter: call N plays the N-th chunk list and records the request. A call
 * beyond the script ends in an error finish, like any provider failure.
 */
import { Effect, Layer, Ref, Stream } from "effect"
import type { StreamChunk } from "@turnlog/protocol"
import { LlmAdapter, type LlmRequest, type ModelInfo, type Service } from "./LlmAdapter.js"

export interface ScriptedCall {
  readonly chunks: ReadonlyArray<StreamChunk>
  /** Pause before each chunk, so a test can cancel mid-stream. */
  readonly delayMs?: number
}

export type ScriptStep = ReadonlyArray<StreamChunk> | ScriptedCall

const normalize = (step: ScriptStep): ScriptedCall => ("chunks" in step ? step : { chunks: step })

export interface Options {
  /** The model facts every route answers with (absent: none, so the loop never compacts). */
  readonly modelInfo?: ModelInfo
}

export const make = (calls: ReadonlyArray<ScriptStep>, options: Options = {}) =>
  Effect.gen(function*() {
    const requests = yield* Ref.make<ReadonlyArray<LlmRequest>>([])
    const stream = (request: LlmRequest): Stream.Stream<StreamChunk> =>
      Stream.unwrap(
        Ref.modify(requests, (all) => [all.length, [...all, request]] as const).pipe(
          Effect.map((n) => {
            const step = calls[n]
            if (step === undefined) {
              const exhausted: StreamChunk = {
                type: "finish",
                reason: {
                  kind: "error",
                  failure: { code: "SCRIPT_EXHAUSTED", message: `the scripted model has no response for call ${n + 1}` },
                },
              }
              return Stream.make(exhausted)
            }
            const call = normalize(step)
            const chunks: Stream.Stream<StreamChunk> = Stream.fromIterable(call.chunks)
            return call.delayMs === undefined
              ? chunks
              : chunks.pipe(Stream.tap(() => Effect.sleep(call.delayMs!)))
          }),
        ),
      )
    const info = options.modelInfo
    const adapter: Service = info === undefined ? { stream } : { stream, modelInfo: () => info }
    return { adapter, requests: Ref.get(requests) } as const
  })

export const layerScripted = (calls: ReadonlyArray<ScriptStep>, options: Options = {}) =>
  Layer.effect(LlmAdapter, Effect.map(make(calls, options), (s) => s.adapter))
