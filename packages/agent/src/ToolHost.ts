/**
 * Where the built-in tools read, write and run when the session's client does
 * it for them. An editor can offer its own file system — what it reads is the
 * unsaved buffer the user sees, what it writes lands in that buffer — and its
 * own terminal, where a command shows as it runs. A session whose client
 * offers nothing has no host, and the tools use the disk and a child process
 * as always.
 *
 * The host does only the reading, writing or running: the tools confine the
 * path to the session's directory first, ask the same permission, and give
 * the model a result of the same shape either way. Paths handed to a host are
 * absolute and already confined.
 */
import { Context, Data, type Effect } from "effect"

/** The client could not do what it was asked; `reason` is its own message. */
export class HostFailed extends Data.TaggedError("HostFailed")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

/** One command for the client's terminal: `file` run with `args` in `cwd` (a shell, or the sandbox around it). */
export interface CommandRequest {
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  /** The command is killed after this long; its output so far is still returned. */
  readonly timeoutMs: number
}

/** How a command in the client's terminal ended, with everything it printed. */
export interface CommandOutcome {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly output: string
  /** The client dropped the beginning of the output (its own limit). */
  readonly truncated: boolean
  readonly timedOut: boolean
}

/** What one session's client does for the tools; a method that is absent is not offered. */
export interface ToolHost {
  /** Who does it, for the tools' sentences: `the editor`. */
  readonly name: string
  readonly readTextFile?: (path: string) => Effect.Effect<string, HostFailed>
  readonly writeTextFile?: (path: string, content: string) => Effect.Effect<void, HostFailed>
  /** Runs the command to its end (or its timeout); interrupted, it kills the command and lets the terminal go. */
  readonly runCommand?: (request: CommandRequest) => Effect.Effect<CommandOutcome, HostFailed>
}

export interface Service {
  /**
   * The host of one call of a session, when its client offers one. `showTerminal`
   * tells whoever follows the turn that the call's command runs in the client's
   * terminal `terminalId`.
   */
  readonly hostFor: (
    call: { readonly sessionId: string; readonly callId: string },
    showTerminal: (terminalId: string) => Effect.Effect<void>,
  ) => Effect.Effect<ToolHost | undefined>
}

/** Optional: without it every session's tools use the disk and child processes. */
export class ToolHosts extends Context.Tag("@turnlog/agent/ToolHosts")<ToolHosts, Service>() {}
