/**
 * `turnlog import <file>` (`-`: stdin): a session in the JSONL log format
 * (what `turnlog export` writes, or a JSONL store's log file) added to the
 * configured store under its own id. The whole file is verified before
 * anything is stored, by the JSONL layer's own reading rules (see
 * `LogFormat.decode`): a newer version, a line that is not an event of this
 * version, a gap in seq — each refused naming the file and line. An id the
 * store already holds is refused; nothing stored is touched. Events are then
 * written in batches, each flushed, so a failure midway can say exactly which
 * events are stored.
 */
import { readFileSync } from "node:fs"
import { Effect, Either } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { LogFormat, OpenTurn, SessionStore } from "@turnlog/store"
import { CommandFailed } from "../CliError.js"
import * as Layers from "../Layers.js"
import { note, out } from "../Output.js"
import type { Settings } from "../Settings.js"

/** Events per flush: each flush is a point the import can report as stored. */
const BATCH = 500

const readInput = (file: string): Effect.Effect<{ readonly bytes: Uint8Array; readonly name: string }, CommandFailed> =>
  Effect.try({
    // fd 0 read to its end: a pipe or a redirected file alike.
    try: () => ({ bytes: readFileSync(file === "-" ? 0 : file), name: file === "-" ? "stdin" : file }),
    catch: (e) =>
      new CommandFailed({
        message: `${file === "-" ? "stdin" : file} cannot be read: ${e instanceof Error ? e.message : String(e)}`,
      }),
  })

const range = (from: number, to: number) => (from === to ? `event ${from}` : `events ${from}–${to}`)

/** Stores the verified session, batch by batch; a failure says what is stored. */
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
    }).pipe(
      Effect.mapError((e) => new CommandFailed({ message: `session ${id} was not imported (nothing was written): ${e.message}` })),
    )
    let stored = 0
    for (let from = 0; from < events.length; from += BATCH) {
      const batch = events.slice(from, from + BATCH)
      yield* Effect.zipRight(store.append(id, batch), store.flush(id)).pipe(
        Effect.mapError((e) =>
          new CommandFailed({
            message: `importing session ${id} into the ${kind} store stopped: ${
              stored === 0 ? "the session is stored with its header and no events" : `${range(1, stored)} of ${events.length} are stored`
            }; writing ${range(stored + 1, stored + batch.length)} failed${
              e._tag === "LeaseLost" ? " (whether they were stored is settled when the session is next opened)" : ""
            } and nothing after was written: ${e.message}`,
          })
        ),
      )
      stored += batch.length
    }
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
  }).pipe(Effect.provide(Layers.storeLayer(settings)))

const openTurnNote = (id: SessionId, start: SessionLog.SessionEvent) =>
  `session ${id}: its last turn (from event ${start.seq}) is open; it is closed as interrupted when the session is next opened`
