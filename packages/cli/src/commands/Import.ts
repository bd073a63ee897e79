/**
 * `turnlog import <file>` (`-`: stdin): a session in the JSONL log format
 * (what `turnlog export` writes, or a JSONL store's log file) added to the
 * configured store under its own id. The whole file is verified before
 * anything is stored, by the JSONL layer's own reading rules and what every
 * store can serve (see `LogFormat.decode`): a newer version, a line that is
 * not an event of this version, a gap in seq, an id or a cwd no store could
 * serve, a line too large or too deeply nested to write — each refused
 * naming the file and line. An id the store already holds is refused;
 * nothing stored is touched. The session is then stored in one step (see `SessionStore.create`'s `events`): an import
 * that fails leaves no session behind, so it can simply be run again.
 */
import { readFileSync } from "node:fs"
import { Effect, Either } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { LogFormat, OpenTurn, SessionStore } from "@turnlog/store"
import { CommandFailed } from "../CliError.js"
import * as StoreLayers from "../StoreLayers.js"
import { note, out } from "../Output.js"
import { Invocation, type Settings } from "../Settings.js"

/** A whole file, or stdin read as a stream until it ends (a pipe's writer may be slower than this reader). */
const readInput = (file: string): Effect.Effect<{ readonly bytes: Uint8Array; readonly name: string }, CommandFailed> => {
  const name = file === "-" ? "stdin" : file
  const failed = (e: unknown) => new CommandFailed({ message: `${name} cannot be read: ${e instanceof Error ? e.message : String(e)}` })
  return file === "-"
    ? Effect.flatMap(Invocation, ({ stdin }) =>
      Effect.tryPromise({
        try: async () => {
          const chunks: Array<Buffer> = []
          for await (const chunk of stdin) chunks.push(chunk as Buffer)
          return { bytes: Buffer.concat(chunks), name }
        },
        catch: failed,
      }))
    : Effect.try({ try: () => ({ bytes: readFileSync(file), name }), catch: failed })
}

/** Stores the verified session in one step: whole, or (when writing fails) not at all. */
const write = (store: SessionStore.Service, session: LogFormat.Session, kind: string) =>
  Effect.gen(function*() {
    const { header, events } = session
    const id = header.id
    // The header as written: its creation time, and its version (a version-1
    // log stays one, so the build that wrote it still reads it).
    yield* store.create({
      id,
      cwd: header.cwd,
      createdAt: header.createdAt,
      version: header.version,
      ...(header.title === undefined ? {} : { title: header.title }),
      events,
    }).pipe(
      Effect.mapError((e) =>
        new CommandFailed({
          message: e._tag === "LeaseLost"
            ? `importing session ${id} into the ${kind} store: ${e.message}; whether it was stored is not known (see: turnlog sessions)`
            : `session ${id} was not imported (nothing was stored in the ${kind} store): ${e.message}`,
        })
      ),
    )
    yield* store.release(id).pipe(
      Effect.mapError((e) => new CommandFailed({ message: `session ${id}: all ${events.length} events are stored, but ${e.message}` })),
    )
  })

export const importSession = (settings: Settings, options: { readonly file: string }) =>
  Effect.gen(function*() {
    const input = yield* readInput(options.file)
    const decoded = LogFormat.decode(input.bytes, input.name)
    if (Either.isLeft(decoded)) {
      return yield* new CommandFailed({ message: `${decoded.left.message}: nothing imported` })
    }
    const session = decoded.right
    const id: SessionId = session.header.id
    const store = yield* SessionStore.SessionStore
    // Refused before the store is written: `create` refuses too, but this says what is there.
    const existing = yield* Effect.either(store.read(id))
    if (Either.isRight(existing)) {
      return yield* new CommandFailed({
        message: `session ${id} already exists in the ${settings.store} store (${existing.right.events.length} events): nothing imported`,
      })
    }
    if (existing.left._tag !== "SessionNotFound") {
      return yield* new CommandFailed({
        message: `session ${id} is already stored in the ${settings.store} store (and cannot be read: ${existing.left.message}): nothing imported`,
      })
    }
    yield* write(store, session, settings.store)
    yield* out(`imported session ${id}: ${session.events.length} events\n`)
    const open = OpenTurn.openTurnStart(session.events)
    if (open >= 0) yield* note(openTurnNote(id, session.events[open]!))
  }).pipe(Effect.provide(StoreLayers.storeLayer(settings)))

const openTurnNote = (id: SessionId, start: SessionLog.SessionEvent) =>
  `session ${id}: its last turn (from event ${start.seq}) is open; it is closed as interrupted when the session is next opened`
