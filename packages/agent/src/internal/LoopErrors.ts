/** The agent loop's own failures, besides the store's (re-exported by `AgentLoop`). */
import { Data } from "effect"
import type { Failure, SessionId } from "@turnlog/protocol"
import type { StoreError } from "@turnlog/store"
import type * as Compact from "./Compact.js"

/**
 * The error as its one sentence wherever it is printed: an expected outcome
 * (an unknown session, a busy one, a model that cannot be used) carries no
 * stack trace, so a caller that prints the failure — `Effect.runPromise`'s
 * `FiberFailure` included — shows what is wrong and nothing else.
 */
export const oneSentence = <E extends Error>(error: E): E => {
  error.stack = `${error.name}: ${error.message}`
  return error
}

export class AgentBusy extends Data.TaggedError("AgentBusy")<{ readonly sessionId: SessionId }> {
  override get message() {
    return `session ${this.sessionId} already has a turn in flight`
  }
}

export class InvalidModel extends Data.TaggedError("InvalidModel")<{ readonly model: string; readonly detail: string }> {
  override get message() {
    return `model "${this.model}": ${this.detail}`
  }
}

/** A compaction asked for that could not be made; `message` says why in one sentence. */
export class CompactionFailed extends Data.TaggedError("CompactionFailed")<{ readonly message: string }> {}

/** What an asked-for compaction did: the request estimates before and after, or nothing to summarise. */
export type Compacted = Compact.Compacted

/**
 * No request on the model could be sent (`failure` says why), known before
 * anything was stored: a new session refused before it was made, or a prompt
 * on `sessionId` refused before its turn began (nothing appended).
 */
export class ModelUnavailable extends Data.TaggedError("ModelUnavailable")<{
  readonly provider: string
  readonly model: string
  readonly failure: Failure
  readonly sessionId?: SessionId
}> {
  override get message() {
    return this.failure.message
  }
}

export type AgentError = StoreError.StoreError | AgentBusy | InvalidModel | ModelUnavailable
