/**
 * A session id as the user typed it (`show <id>`, `doctor <id>`, `run
 * --session <id>`). Text that no store could hold as an id (the one rule,
 * `isSessionId`: too long for a file name, a path in it, …) is "not a
 * session id", said before any store is asked.
 */
import { Effect, Either } from "effect"
import { isSessionId, type SessionId } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store"
import { CommandFailed } from "./CliError.js"
import { clipQuoted } from "./Clip.js"
import { toCommandError } from "./StoreErrors.js"

export const parse = (text: string): Either.Either<SessionId, CommandFailed> =>
  isSessionId(text)
    ? Either.right(text)
    : Either.left(
      new CommandFailed({
        message: `session ${clipQuoted(JSON.stringify(text))} not found: that is not a session id (list sessions with: turnlog sessions)`,
      }),
    )

/**
 * The stored session `text` names: its id, or any unique prefix or suffix of
 * one (`20261202T1204`, `303adb34`). Text matching several is refused naming
 * them; text matching none is passed on as typed, for the store to say it is
 * not found.
 */
export const resolve = (text: string) =>
  Effect.gen(function*() {
    const typed = yield* parse(text)
    const store = yield* SessionStore.SessionStore
    const listed = yield* Effect.mapError(store.list(), toCommandError)
    const ids = [...listed.sessions.map((s) => s.id as string), ...listed.unreadable.map((u) => u.id)]
    if (ids.includes(typed)) return typed
    const matches = ids.filter((id) => id.startsWith(typed) || id.endsWith(typed))
    if (matches.length === 1) return matches[0] as SessionId
    if (matches.length > 1) {
      const named = matches.slice(0, 5).join(", ")
      return yield* new CommandFailed({
        message: `session ${clipQuoted(JSON.stringify(text))} is ambiguous: it matches ${matches.length} sessions (${named}${
          matches.length > 5 ? ", …" : ""
        }); give more of the id`,
      })
    }
    return typed
  })

/** The latest session in `cwd` (the list is newest first), or a sentence saying there is none. */
export const latestIn = (cwd: string, command: string) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const listed = yield* Effect.mapError(store.list({ cwd }), toCommandError)
    const latest = listed.sessions[0]
    if (latest === undefined) {
      return yield* new CommandFailed({ message: `no session in ${cwd} to ${command}; name one: turnlog ${command} <id> (list them with: turnlog sessions)` })
    }
    return latest.id
  })
