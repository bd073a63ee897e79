/**
 * A store or agent failure, as the one sentence a command ends with (exit 1).
 * The store's errors already name the file, line or session; this only frames
 * them.
 */
import type { AgentLoop } from "@turnlog/agent"
import { CommandFailed, UsageError } from "./CliError.js"

export const toCommandError = (error: AgentLoop.AgentError): CommandFailed | UsageError => {
  switch (error._tag) {
    case "InvalidModel":
      return new UsageError({ message: error.message })
    case "SessionNotFound":
      return new CommandFailed({ message: `${error.message} (list sessions with: turnlog sessions)` })
    case "ModelUnavailable":
      return new CommandFailed({
        message: `${error.message} (${error.failure.code}); ${
          error.sessionId === undefined ? "no session was created" : `nothing was added to session ${error.sessionId}`
        }`,
      })
    default:
      return new CommandFailed({ message: error.message })
  }
}

/** Leaves the command's own errors as they are and frames the rest. */
export const asCommandError = (error: AgentLoop.AgentError | CommandFailed | UsageError): CommandFailed | UsageError =>
  error._tag === "CommandFailed" || error._tag === "UsageError" ? error : toCommandError(error)
