/**
 * One AI SDK `doStream` call as a `Stream` of reducer inputs: its parts, then
 * `source-end`, or `source-failed` when the call or the stream throws. The
 * source never fails the stream: a foreign failure becomes an input here,
 * where it enters, and the reducer classifies it.
 *
 * The request's `AbortController` and the stream's reader are scoped: when the
 * scope closes (interrupted, consumer done early, or after the finish) the
 * request is aborted first, then the reader cancelled without waiting on it,
 * so a provider stream that hangs cannot hold the interruption up.
 */
import type { LanguageModelV3StreamPart, LanguageModelV3StreamResult } from "@ai-sdk/provider"
import { Effect, Option, Stream } from "effect"
import { type Input, sourceEnd, sourceFailed } from "../AiSdkChunks.js"

export const inputs = (open: (signal: AbortSignal) => PromiseLike<LanguageModelV3StreamResult>): Stream.Stream<Input> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const controller = yield* Effect.acquireRelease(
      Effect.sync(() => new AbortController()),
      (controller) => Effect.sync(() => controller.abort()),
    )
    const opened = yield* Effect.either(Effect.tryPromise({ try: () => open(controller.signal), catch: sourceFailed }))
    if (opened._tag === "Left") return Stream.succeed<Input>(opened.left)
    const reader = yield* Effect.acquireRelease(
      Effect.sync(() => opened.right.stream.getReader()),
      (reader) =>
        Effect.sync(() => {
          controller.abort()
          reader.cancel().catch(() => undefined)
        }),
    )
    const next = Effect.tryPromise({ try: () => reader.read(), catch: (cause) => Option.some<Input>(sourceFailed(cause)) }).pipe(
      Effect.flatMap((read: { readonly done: boolean; readonly value?: LanguageModelV3StreamPart | undefined }) =>
        read.done || read.value === undefined ? Effect.fail(Option.none()) : Effect.succeed<Input>(read.value)
      ),
    )
    return Stream.repeatEffectOption(next).pipe(
      Stream.concat(Stream.succeed(sourceEnd)),
      Stream.catchAll((input) => Stream.succeed(input)),
    )
  }))
