/**
 * Where the read side reports replay state it could not use. A diagnostic is
 * never an error: the message it names went to the provider as
 * provider-neutral content and the request proceeded.
 */
import { Context, Effect, Layer, Ref } from "effect"
import type { ReplayDiagnostic } from "@turnlog/history/Replay"

export type { ReplayDiagnostic } from "@turnlog/history/Replay"
export { INVALID_REPLAY_STATE } from "@turnlog/history/Replay"

export interface Service {
  /** Reports diagnostics found together (one request's reconstruction), in order. */
  readonly report: (diagnostics: ReadonlyArray<ReplayDiagnostic>) => Effect.Effect<void>
}

export class ReplayDiagnostics extends Context.Tag("@turnlog/llm/ReplayDiagnostics")<ReplayDiagnostics, Service>() {}

/** One line on stderr per diagnostic; stdout may belong to a protocol. */
export const format = (d: ReplayDiagnostic): string =>
  `${d.code}: ${d.sessionId ? `session ${d.sessionId}, ` : ""}message ${d.messageId} ` +
  `(${d.historicalRoute} -> ${d.targetRoute}) sent as provider-neutral content: ${d.reason}`

export const layerStderr = Layer.succeed(ReplayDiagnostics, {
  report: (ds) => Effect.sync(() => process.stderr.write(ds.map((d) => `turnlog: ${format(d)}\n`).join(""))),
})

/** Collects diagnostics in memory (tests, `doctor`). */
export const makeCollector = Effect.gen(function*() {
  const ref = yield* Ref.make<ReadonlyArray<ReplayDiagnostic>>([])
  const service: Service = { report: (ds) => Ref.update(ref, (all) => [...all, ...ds]) }
  return { service, all: Ref.get(ref) } as const
})

export const layerSilent = Layer.succeed(ReplayDiagnostics, { report: () => Effect.void })
