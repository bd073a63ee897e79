/**
 * `turnlog export <id>`: a session of any store on stdout in the JSONL log
 * format — the header line, then one event per line, exactly as the JSONL
 * store writes its log (for a JSONL session: its file, byte for byte, without
 * a torn tail). Read without changing anything; nothing is written to stdout
 * until the whole session has been read and verified, so a failure leaves
 * stdout empty rather than holding a log that looks complete and is not.
 * A turn left open, or in flight in another process, is exported as it is,
 * with a note on stderr.
 */
import { Effect } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { LogFormat, SessionStore, type StoreError } from "@turnlog/store"
import * as Layers from "../Layers.js"
import { note } from "../Output.js"
import * as SessionIdArg from "../SessionIdArg.js"
import type { Settings } from "../Settings.js"
import { toCommandError } from "../StoreErrors.js"

interface Read {
  readonly header: SessionLog.SessionHeader
  readonly events: ReadonlyArray<SessionLog.SessionEvent>
  readonly recovery: SessionStore.Recovery
}

/** The one place the session is read: a whole-session read today, the store's streaming read when it has one. */
const eventsOf = (store: SessionStore.Service, id: SessionId): Effect.Effect<Read, StoreError.StoreError> => store.read(id)

/** Stdout in pieces, each waited for: a reader slower than the log (a pipe) holds the command, not its memory. */
const PIECE = 1 << 20

const write = (text: string): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    process.stdout.write(text, () => resume(Effect.void))
  })

const writeAll = (header: SessionLog.SessionHeader, events: ReadonlyArray<SessionLog.SessionEvent>) =>
  Effect.gen(function*() {
    let text = LogFormat.encodeHeader(header)
    for (let i = 0; i < events.length; i++) {
      text += LogFormat.encodeEvents([events[i]!])
      if (text.length >= PIECE) {
        yield* write(text)
        text = ""
      }
    }
    if (text.length > 0) yield* write(text)
  })

export const exportSession = (settings: Settings, options: { readonly id: string }) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const id = yield* SessionIdArg.parse(options.id)
    const session = yield* eventsOf(store, id).pipe(Effect.mapError(toCommandError))
    const { openTurn, tornTail } = session.recovery
    if (tornTail !== undefined) {
      yield* note(
        `session ${id}: a torn tail of ${tornTail.bytes} bytes at line ${tornTail.line} (an unfinished write) is not exported`,
      )
    }
    if (openTurn !== undefined) {
      yield* note(
        openTurn.holder === undefined
          ? `session ${id}: its last turn (from event ${openTurn.seq}) was left open; exported as it is (the next open closes it as interrupted)`
          : `session ${id}: its last turn (from event ${openTurn.seq}) is in flight on host ${openTurn.holder.host} by process ${openTurn.holder.pid}; exported as far as it is written`,
      )
    }
    yield* writeAll(session.header, session.events)
  }).pipe(Effect.provide(Layers.readStoreLayer(settings)))
