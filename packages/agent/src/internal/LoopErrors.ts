/** The agent loop's own failures, besides the store's (re-exported by `AgentLoop`). */
import { Data } from "effect"
import type { SessionId } from "@turnlog/protocol"
import type { StoreError } from "@turnlog/store"
import type * as Compact from "./Compact.js"

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

export type AgentError = StoreError.StoreError | AgentBusy | InvalidModel
