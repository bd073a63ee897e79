/**
 * The agent loop as a service: sessions, turns and their updates. Composed from
 * `LlmAdapter`, `SessionStore`, `Tools` and `Permissions` layers; the ACP server
 * and the command line drive it.
 */
import { Context, Data, type Effect, type Stream } from "effect"
import type { ContentBlock, Failure, SessionId, SessionLog, Usage } from "@turnlog/protocol"
import type { SessionStore, StoreError } from "@turnlog/store"

/** What a prompt streams, in order, as it happens. */
export type AgentUpdate =
  | { readonly type: "turn-start" }
  | { readonly type: "text-delta"; readonly text: string }
  | { readonly type: "reasoning-delta"; readonly text: string }
  /** A tool call the model finished and the log committed (never one cut off by max-tokens). */
  | {
    readonly type: "tool-call"
    readonly callId: string
    readonly name: string
    readonly arguments: string
  }
  | { readonly type: "tool-running"; readonly callId: string; readonly name: string }
  | {
    readonly type: "tool-result"
    readonly callId: string
    readonly name: string
    readonly content: string
    readonly isError: boolean
  }
  | { readonly type: "usage"; readonly usage: Usage }
  /**
   * A provider attempt failed transiently and will be retried after `delayMs`;
   * `attempt` is the number of the attempt about to run (2 for the first retry),
   * as its `request/start` will record it.
   */
  | { readonly type: "retry"; readonly attempt: number; readonly delayMs: number; readonly failure: Failure }
  | {
    readonly type: "turn-end"
    readonly reason: SessionLog.TurnEndReason
    readonly failure?: Failure
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

export type AgentError = StoreError.StoreError | AgentBusy | InvalidModel

export interface Service {
  /** A new session in `cwd`; `model` is `<provider>/<model>` (default: the loop's configured model). */
  readonly createSession: (options: { readonly cwd: string; readonly model?: string }) => Effect.Effect<SessionId, AgentError>
  /** Opens a stored session for writing (the store's recovery runs) and returns its log. */
  readonly load: (id: SessionId, options?: { readonly model?: string }) => Effect.Effect<SessionStore.LoadedSession, AgentError>
  /** Runs one turn. The stream ends after its `turn-end` update. */
  readonly prompt: (id: SessionId, content: string | ReadonlyArray<ContentBlock>) => Stream.Stream<AgentUpdate, AgentError>
  /** Cancels the turn in flight, if any; the prompt's stream ends with `turn-end {cancelled}`. */
  readonly cancel: (id: SessionId) => Effect.Effect<void>
}

export class AgentLoop extends Context.Tag("@turnlog/agent/AgentLoop")<AgentLoop, Service>() {}
