/**
 * The read side's vocabulary: an adapter's replay codec, the typed error it
 * fails with when stored replay state is unusable, and the diagnostic the
 * reconstructor reports when it degrades a message.
 */
import { type Effect, Exit } from "effect"
import type { Message, MessageId, SessionId } from "@turnlog/protocol"

/**
 * Replay state this build cannot use: a tagged value for the Effect error
 * channel (`catchTag("InvalidReplayState", …)`) carrying the reason. It is
 * about the state, not about one message — the reconstructor knows which
 * message it decoded — so equal reasons can share one value.
 *
 * Deliberately a plain class, not an Error nor a structural `Data` class:
 * degrading is an expected path, and a stack trace or structural-equality
 * machinery on every legacy message of a long session would be pure cost.
 */
export class InvalidReplayState {
  declare readonly _tag: "InvalidReplayState"
  declare readonly reason: string
  constructor(fields: { readonly reason: string }) {
    this._tag = "InvalidReplayState"
    this.reason = fields.reason
  }

  /**
   * The completed failure a codec's `decode` answers with when the state is
   * unusable. A long legacy session degrades thousands of messages for a
   * handful of reasons, so the failure of each reason is made once and shared
   * (it is an immutable value): degrading a message then allocates nothing.
   * Up to `SHARED_REASONS` reasons are kept; past that, each call makes a new one.
   */
  static fail(reason: string): Exit.Exit<never, InvalidReplayState> {
    const shared = failures.get(reason)
    if (shared !== undefined) return shared
    const exit = Exit.fail(new InvalidReplayState({ reason }))
    if (failures.size < SHARED_REASONS) failures.set(reason, exit)
    return exit
  }
}

/** How many distinct reasons `InvalidReplayState.fail` keeps a shared failure for. */
export const SHARED_REASONS = 256
const failures = new Map<string, Exit.Exit<never, InvalidReplayState>>()

export const INVALID_REPLAY_STATE = "INVALID_REPLAY_STATE" as const

export interface ReplayDiagnostic {
  readonly code: typeof INVALID_REPLAY_STATE
  readonly sessionId?: SessionId
  readonly messageId: MessageId
  /** `<provider>/<model>` the message was produced by. */
  readonly historicalRoute: string
  /** `<provider>/<model>` of the request being built. */
  readonly targetRoute: string
  readonly reason: string
}

/** How one adapter turns a durable assistant message into its native form. */
export interface ReplayCodec<Native> {
  /** The `kind` of replay state this codec writes (e.g. "pi-ai"). */
  readonly kind: string
  /**
   * Native form from durable content plus the stored replay state. Return a
   * completed `Exit` (`Exit.succeed` / `InvalidReplayState.fail`) when the answer is known
   * synchronously: the reconstructor then reads it in one loop without running
   * a fiber per message (note that `Effect.fail` with an object error is not
   * completed: it captures the current span when run).
   */
  readonly decode: (message: Message) => Effect.Effect<Native, InvalidReplayState>
  /** Provider-neutral conversion from durable content alone. */
  readonly foreign: (message: Message) => Native
}
