/**
 * `turnlog fork <id> [--at <turn>]`: a new session, in the same store and
 * directory, that starts with the session's events up to the end of turn
 * `<turn>` (default: its last ended turn) and records where it came from (see
 * `Fork` in the store). The new id is printed on stdout, alone, for a script to
 * take; continuing the fork leaves the original as it was.
 */
import { Effect, Either } from "effect"
import { Fork, SessionStore } from "@turnlog/store"
import { UsageError } from "../CliError.js"
import * as StoreLayers from "../StoreLayers.js"
import { note, out } from "../Output.js"
import * as SessionIdArg from "../SessionIdArg.js"
import type { Settings } from "../Settings.js"
import { toCommandError } from "../StoreErrors.js"

/** `--at`'s text as a turn number (1 and up), or what is wrong with it. */
export const parseTurn = (text: string | undefined): Either.Either<number | undefined, UsageError> => {
  if (text === undefined) return Either.right(undefined)
  // 0 is a number, refused by the session's range (named then).
  return /^\d+$/.test(text.trim())
    ? Either.right(Number(text))
    : Either.left(new UsageError({ message: `--at ${JSON.stringify(text)} is not a turn: give a turn number, 1 or more` }))
}

export const fork = (settings: Settings, options: { readonly id: string; readonly at: string | undefined }) =>
  Effect.gen(function*() {
    // The turn is checked before the store is opened.
    const at = yield* parseTurn(options.at)
    return yield* Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const id = yield* SessionIdArg.resolve(options.id)
      const forked = yield* Fork.fork(store, id, at === undefined ? {} : { at }).pipe(
        Effect.catchTag("ForkTurnOutOfRange", (e) =>
          Effect.fail(
            new UsageError({
              message: e.turns === 0
                ? e.message
                : `--at ${e.turn} is not a turn of session ${e.sessionId}: give ${e.turns === 1 ? "1" : `1 to ${e.turns}`}`,
            }),
          )),
        Effect.mapError((e) => e._tag === "UsageError" ? e : toCommandError(e)),
      )
      yield* note(`forked session ${id} at turn ${forked.turn}`)
      yield* out(`${forked.id}\n`)
    }).pipe(Effect.provide(StoreLayers.readStoreLayer(settings)))
  })
