/**
 * `turnlog doctor [<id>]`: what this build makes of each stored session,
 * without changing anything. A session that cannot be read is reported and
 * the others are still examined; the exit code is 1 when any could not be read.
 */
import { Effect, Either } from "effect"
import { SessionId } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store"
import { CommandFailed } from "../CliError.js"
import * as Doctor from "../Doctor.js"
import * as Layers from "../Layers.js"
import { json, out } from "../Output.js"
import * as SessionIdArg from "../SessionIdArg.js"
import type { Settings } from "../Settings.js"
import { toCommandError } from "../StoreErrors.js"

export type Entry = Doctor.SessionReport | { readonly id: string; readonly unreadable: string }

/** The reports for `ids` (every listed session when empty), in order. */
export const examine = (ids: ReadonlyArray<string> | undefined) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const entries: Array<Entry> = []
    let targets = ids
    if (targets === undefined) {
      const listed = yield* store.list().pipe(Effect.mapError(toCommandError))
      targets = listed.sessions.map((s) => s.id)
      for (const { error, id } of listed.unreadable) entries.push({ id, unreadable: error.message })
    }
    for (const id of targets) {
      const read = yield* Effect.either(store.read(SessionId.make(id)))
      entries.push(Either.isRight(read) ? Doctor.diagnose(read.right) : { id, unreadable: read.left.message })
    }
    return entries
  })

export const renderAll = (entries: ReadonlyArray<Entry>): string =>
  entries.length === 0
    ? "no sessions to examine\n"
    : entries.map((e) => ("unreadable" in e ? `session ${e.id}: cannot be read: ${e.unreadable}` : Doctor.render(e)))
      .join("\n") + "\n"

export const doctor = (settings: Settings, options: { readonly id: string | undefined; readonly json: boolean }) =>
  Effect.gen(function*() {
    if (options.id !== undefined) yield* SessionIdArg.parse(options.id)
    const entries = yield* examine(options.id === undefined ? undefined : [options.id])
    yield* options.json ? json(entries) : out(renderAll(entries))
    const unreadable = entries.filter((e) => "unreadable" in e)
    if (unreadable.length > 0) {
      return yield* new CommandFailed({
        message: options.id !== undefined && unreadable.length === 1
          ? (unreadable[0] as { unreadable: string }).unreadable
          : `${unreadable.length} session(s) cannot be read`,
      })
    }
  }).pipe(Effect.provide(Layers.readStoreLayer(settings)))
