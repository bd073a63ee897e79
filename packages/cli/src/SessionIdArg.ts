/**
 * A session id as the user typed it (`show <id>`, `doctor <id>`, `run
 * --session <id>`). Text that no store could hold as an id (the one rule,
 * `isSessionId`: too long for a file name, a path in it, …) is "not a
 * session id", said before any store is asked.
 */
import { Either } from "effect"
import { isSessionId, type SessionId } from "@turnlog/protocol"
import { CommandFailed } from "./CliError.js"
import { clipQuoted } from "./Clip.js"

export const parse = (text: string): Either.Either<SessionId, CommandFailed> =>
  isSessionId(text)
    ? Either.right(text)
    : Either.left(
      new CommandFailed({
        message: `session ${clipQuoted(JSON.stringify(text))} not found: that is not a session id (list sessions with: turnlog sessions)`,
      }),
    )
