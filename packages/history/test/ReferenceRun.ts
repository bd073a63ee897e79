/**
 * The reference reconstruction: what `History.reconstruct` and a
 * `History.makeReconstructor` memo must answer, written to be read, not to be
 * fast. The tuned loop (`run` in `src/History.ts`) serves the replay
 * benchmark; to change what reconstruction does, change it here first, and the
 * property test `ReferenceRun.prop.test.ts` shows what the loop must match.
 *
 * - Every assistant message, in order, becomes one native message; other
 *   roles are skipped.
 * - A message without replay state (or not from a model) gets the codec's
 *   provider-neutral form, with no diagnostic.
 * - A message with replay state is decoded; `InvalidReplayState` degrades it
 *   to the provider-neutral form with one diagnostic.
 * - The diagnostics of one reconstruction are reported together, in message
 *   order, in one call — and not at all when there are none.
 * - A memo answers a message id it has seen without the codec (and so without
 *   a second diagnostic), keeping what was decoded from state apart from what
 *   was made without it: a message first sent with state and then without
 *   (after a `replay/degrade`) is made again, without, and forgets the decoded
 *   form.
 */
import { Effect } from "effect"
import type { History, ReplayCodec, ReplayDiagnostic } from "@turnlog/history"
import type { Message, MessageId } from "@turnlog/protocol"

const hasState = (m: Message): boolean => m.source.kind === "model" && m.source.replayState !== undefined

const diagnostic = (m: Message, reason: string, options: History.ReconstructOptions): ReplayDiagnostic => ({
  code: "INVALID_REPLAY_STATE",
  ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
  messageId: m.id,
  historicalRoute: m.source.kind === "model" ? `${m.source.provider}/${m.source.model}` : m.source.kind,
  targetRoute: options.targetRoute,
  reason,
})

interface Memo<Native> {
  readonly decoded: Map<MessageId, Native>
  readonly stateless: Map<MessageId, Native>
}

const reconstructWith = <Native>(
  messages: ReadonlyArray<Message>,
  codec: ReplayCodec<Native>,
  options: History.ReconstructOptions,
  memo: Memo<Native> | undefined,
): Effect.Effect<Array<Native>> =>
  Effect.gen(function*() {
    const out: Array<Native> = []
    const diagnostics: Array<ReplayDiagnostic> = []
    for (const m of messages.filter((m) => m.role === "assistant")) {
      if (!hasState(m)) {
        const known = memo?.stateless.get(m.id)
        const native = known ?? codec.foreign(m)
        if (known === undefined && memo !== undefined) {
          memo.stateless.set(m.id, native)
          memo.decoded.delete(m.id)
        }
        out.push(native)
        continue
      }
      const known = memo?.decoded.get(m.id)
      if (known !== undefined) {
        out.push(known)
        continue
      }
      const native = yield* codec.decode(m).pipe(
        Effect.catchTag("InvalidReplayState", (error) => {
          diagnostics.push(diagnostic(m, error.reason, options))
          return Effect.succeed(codec.foreign(m))
        }),
      )
      memo?.decoded.set(m.id, native)
      out.push(native)
    }
    if (diagnostics.length > 0) yield* options.report(diagnostics)
    return out
  })

export const reconstruct = <Native>(
  messages: ReadonlyArray<Message>,
  codec: ReplayCodec<Native>,
  options: History.ReconstructOptions,
): Effect.Effect<Array<Native>> => reconstructWith(messages, codec, options, undefined)

export const makeReconstructor = <Native>(codec: ReplayCodec<Native>): History.Reconstructor<Native> => {
  const memo: Memo<Native> = { decoded: new Map(), stateless: new Map() }
  return {
    message: (m, options) => Effect.map(reconstructWith([m], codec, options, memo), (out) => out[0]!),
    all: (messages, options) => reconstructWith(messages, codec, options, memo),
    size: () => memo.decoded.size + memo.stateless.size,
  }
}
