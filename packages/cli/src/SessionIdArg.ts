/**
 * A session id as the user typed it (`show <id>`, `doctor <id>`, `run
 * --session <id>`). An id names a file or a row, so text that could never be
 * one — too long for a file name, or with a path in it — is "not a session
 * id" (the store would have said ENAMETOOLONG, or looked outside its home).
 */
import { Either } from "effect"
import { SessionId } from "@turnlog/protocol"
import { CommandFailed } from "./CliError.js"
import { clipQuoted } from "./Clip.js"

/** Far above any id turnlog makes (24 characters), below every file system's name limit. */
const MAX_LENGTH = 200

export const parse = (text: string): Either.Either<SessionId, CommandFailed> =>
  text.length === 0 || text.length > MAX_LENGTH || /[/\\\0]/.test(text) || text === "." || text === ".."
    ? Either.left(
      new CommandFailed({
        message: `session ${clipQuoted(JSON.stringify(text))} not found: that is not a session id (list sessions with: turnlog sessions)`,
      }),
    )
    : Either.right(SessionId.make(text))
