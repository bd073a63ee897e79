/** What the agent loop streams for a prompt, one update at a time (re-exported by `AgentLoop`). */
import type { Failure, SessionLog, Usage } from "@turnlog/protocol"

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
  /** The running call's command shows in the client's terminal `terminalId` (see `ToolHost`). */
  | { readonly type: "tool-terminal"; readonly callId: string; readonly name: string; readonly terminalId: string }
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
  /**
   * The history before a cut is being summarised to make room (`start`, before
   * the summary request), and what it came to once `context/compaction` is
   * written (`done`, the request's estimates before and after).
   */
  | { readonly type: "compaction"; readonly phase: "start" }
  | { readonly type: "compaction"; readonly phase: "done"; readonly tokensBefore: number; readonly tokensAfter: number }
  | {
    readonly type: "turn-end"
    readonly reason: SessionLog.TurnEndReason
    readonly failure?: Failure
  }
