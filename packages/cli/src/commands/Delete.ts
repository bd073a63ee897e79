/**
 * `turnlog delete <id>` and `turnlog prune --older-than <age> [--dry-run]`:
 * retention. A session is deleted whole under its lease (see
 * `SessionStore.delete`): its events, its header and its index entry, in one
 * transaction in the databases. A session a live process holds is not
 * deleted: `delete` fails naming the holder, `prune` keeps it and says so.
 * `prune` goes by the time of a session's last event; a session that cannot
 * be read is kept (its age is not known) and named.
 */
import { Effect, Either, Option } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store"
import { CommandFailed, UsageError } from "../CliError.js"
import * as StoreLayers from "../StoreLayers.js"
import { note, out } from "../Output.js"
import * as SessionIdArg from "../SessionIdArg.js"
import type { Settings } from "../Settings.js"
import { toCommandError } from "../StoreErrors.js"

const UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** An age such as `30d`, `12h`, `90m` or `2w`, in milliseconds. */
export const parseAge = (text: string | undefined): Either.Either<number, UsageError> => {
  if (text === undefined) return Either.left(new UsageError({ message: "prune needs --older-than <age> (for example 30d)" }))
  const match = /^(\d+)([mhdw])$/.exec(text.trim())
  return match === null || Number(match[1]) === 0
    ? Either.left(
      new UsageError({
        message: `--older-than ${JSON.stringify(text)} is not an age: give a whole number and a unit, m, h, d or w (for example 30d)`,
      }),
    )
    : Either.right(Number(match[1]) * UNITS[match[2]!]!)
}

export const deleteSession = (settings: Settings, options: { readonly id: string }) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const id = yield* SessionIdArg.resolve(options.id)
    yield* store.delete(id).pipe(Effect.mapError(toCommandError))
    yield* note(`deleted session ${id}`)
  }).pipe(Effect.provide(StoreLayers.readStoreLayer(settings)))

/** The sessions whose last event is older than the age, each deleted (or, dry, named): one line each on stdout. */
export const prune = (settings: Settings, options: { readonly olderThan: Option.Option<string>; readonly dryRun: boolean }) => {
  const olderThan = Option.getOrUndefined(options.olderThan)
  // The age is checked before the store is opened.
  return Effect.flatMap(parseAge(olderThan), (age) => pruneOlder(settings, age, olderThan!, options.dryRun))
}

const pruneOlder = (settings: Settings, age: number, olderThan: string, dryRun: boolean) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const before = Date.now() - age
    const { sessions, unreadable } = yield* store.list().pipe(Effect.mapError((e) => new CommandFailed({ message: e.message })))
    const old = sessions.filter((s) => Date.parse(s.updatedAt) < before)
    let deleted = 0
    const kept: Array<SessionId> = []
    for (const session of old) {
      if (session.status === "running") {
        kept.push(session.id)
        yield* note(`session ${session.id} is in use by a live process; kept`)
        continue
      }
      if (dryRun) {
        yield* out(`${session.id}  ${session.updatedAt}  would be deleted\n`)
        continue
      }
      const outcome = yield* Effect.either(store.delete(session.id))
      if (Either.isLeft(outcome)) {
        kept.push(session.id)
        yield* note(`session ${session.id} kept: ${outcome.left.message}`)
        continue
      }
      deleted++
      yield* out(`${session.id}  ${session.updatedAt}  deleted\n`)
    }
    for (const { error, id } of unreadable) yield* note(`session ${id} cannot be read, so its age is not known; kept: ${error.message}`)
    yield* note(
      dryRun
        ? `${old.length - kept.length} of ${sessions.length} session(s) last written more than ${olderThan} ago would be deleted (nothing was)`
        : `deleted ${deleted} of ${sessions.length} session(s) last written more than ${olderThan} ago`,
    )
    if (kept.length > 0 && !dryRun) {
      return yield* new CommandFailed({ message: `${kept.length} session(s) older than ${olderThan} were kept (see above)` })
    }
  }).pipe(Effect.provide(StoreLayers.readStoreLayer(settings)))
