/** What the ACP server is told when it is made (re-exported by `AcpServer`, with what it says of itself in `initialize`). */
import type * as acp from "@agentclientprotocol/sdk"
import type { Duration } from "effect"
import type { ServerConfig } from "@turnlog/mcp"
import type { SessionStore } from "@turnlog/store"

export { initializeResponse, PROTOCOL_VERSION } from "../Initialize.js"

export interface Options {
  /** Reported as `agentInfo.version`. */
  readonly version: string
  /** Where diagnostics go, one line each (default stderr: stdout is the protocol). */
  readonly log?: (line: string) => void
  /**
   * The `/doctor` command: a report on a stored session's replay health (the
   * command line's doctor, handed in by the caller). Without it no command is offered.
   */
  readonly doctor?: (session: SessionStore.LoadedSession) => string
  /**
   * The model routes a session may switch between (a session config option);
   * the first is the default. Without them no option is offered.
   */
  readonly models?: ReadonlyArray<string>
  /**
   * How long a session goes without a prompt before it is let go (its lease,
   * open files, the loop's hold and its MCP servers); its next prompt opens it
   * again, with whatever another process appended meanwhile. Default 120 s.
   */
  readonly idleRelease?: Duration.DurationInput
  /**
   * The config file's MCP servers: started for every session with the ones
   * the editor names (an editor's server of the same name is used instead).
   */
  readonly mcpServers?: ReadonlyArray<ServerConfig.Server>
  /**
   * How a model comes to run: the method offered in `initialize`, and a check
   * that answers why no model can run yet (one sentence naming what to set and
   * where) or undefined once one can. While it answers a reason, `session/new`
   * and `session/prompt` are answered `auth_required` with it; `authenticate`
   * runs the check again. Without it nothing is offered and nothing is refused.
   */
  readonly auth?: {
    readonly method: acp.AuthMethod
    readonly missing: () => Promise<string | undefined>
  }
}

// `fork` is unstable in the protocol: the SDK's stable types do not name it.
