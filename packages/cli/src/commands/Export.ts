/**
 * `turnlog export [<id>]`: a session (none: the latest in this directory) of any store on stdout in the JSONL log
 * format — the header line, then one event per line, exactly as the JSONL
 * store writes its log (for a JSONL session: its file, byte for byte, without
 * a torn tail). Read without changing anything, and streamed: one pass checks
 * the whole log (as `read` would) before anything is written, so a damaged
 * log leaves stdout empty rather than holding a log that looks complete and
 * is not; a second pass writes it a page at a time, so memory does not grow
 * with the session.
 * A turn left open, or in flight in another process, is exported as it is,
 * with a note on stderr.
 *
 * `--html` writes the session as one self-contained page instead
 * (`html/HtmlExport.ts`); `-o file` writes to a file instead of stdout.
 */
import { Chunk, Effect, type Stream } from "effect"
import type { SessionLog } from "@turnlog/protocol"
import { LogFormat, SessionStore, type StoreError } from "@turnlog/store"
import { CommandFailed } from "../CliError.js"
import * as HtmlExport from "../html/HtmlExport.js"
import * as StoreLayers from "../StoreLayers.js"
import { note, Terminal } from "../Output.js"
import * as OutputFile from "../OutputFile.js"
import * as Pages from "../Pages.js"
import * as SessionIdArg from "../SessionIdArg.js"
import { Invocation, type Settings } from "../Settings.js"
import { toCommandError } from "../StoreErrors.js"

/**
 * Stdout in pieces; when the stream's buffer is full (a reader slower than the
 * log, on a pipe), the next piece waits for it to drain, so the reader holds
 * the command, not its memory. A piece that fits is not waited for: waiting
 * on every write kept each piece alive across collections (peak RSS of a
 * 10,000-turn export 1.4× this way).
 */
const PIECE = 1 << 20

const write = (text: string): Effect.Effect<void> =>
  Effect.flatMap(Terminal, ({ stdout }) =>
    stdout.write(text) ? Effect.void : Effect.async<void>((resume) => {
      const done = () => {
        stdout.off("drain", done)
        stdout.off("error", done)
        resume(Effect.void)
      }
      stdout.on("drain", done)
      stdout.on("error", done)
    }))

const writeAll = <E>(
  header: SessionLog.SessionHeader,
  events: Stream.Stream<SessionLog.SessionEvent, StoreError.StoreError>,
  write: (text: string) => Effect.Effect<void, E>,
): Effect.Effect<void, StoreError.StoreError | E> =>
  Effect.gen(function*() {
    let text = LogFormat.encodeHeader(header)
    const encode = LogFormat.encoder(header)
    yield* Pages.forEachPage(events, (page) => {
      text += encode(Chunk.toReadonlyArray(page))
      if (text.length < PIECE) return Effect.void
      const piece = text
      text = ""
      return write(piece)
    })
    if (text.length > 0) yield* write(text)
  })

export interface ExportOptions {
  /** An id, or a unique prefix or suffix of one; none: the latest session in this directory. */
  readonly id?: string | undefined
  /** The session as an HTML page instead of its log. */
  readonly html?: boolean
  /** Write here instead of stdout. */
  readonly output?: string | undefined
}

export const exportSession = (settings: Settings, options: ExportOptions) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const id = options.id === undefined
      ? yield* SessionIdArg.latestIn((yield* Invocation).cwd, "export")
      : yield* SessionIdArg.resolve(options.id)
    // The checking pass: a damaged log fails here, before stdout is touched.
    const { openTurn, tornTail } = yield* store.recovery(id).pipe(Effect.mapError(toCommandError))
    const header = yield* store.header(id).pipe(Effect.mapError(toCommandError))
    if (tornTail !== undefined) {
      yield* note(
        `session ${id}: a torn tail of ${tornTail.bytes} bytes at line ${tornTail.line} (an unfinished write) is not exported${
          options.html === true ? " (the page says where it is)" : ""
        }`,
      )
    }
    if (openTurn !== undefined) {
      yield* note(
        openTurn.holder === undefined
          ? `session ${id}: its last turn (from event ${openTurn.seq}) was left open; exported as it is (the next open closes it as interrupted)`
          : `session ${id}: its last turn (from event ${openTurn.seq}) is in flight on host ${openTurn.holder.host} by process ${openTurn.holder.pid}; exported as far as it is written`,
      )
    }
    const body = (out: (text: string) => Effect.Effect<void, CommandFailed>) =>
      (options.html === true ? HtmlExport.writePage(id, settings.store, out) : writeAll(header, store.stream(id, 1), out))
        .pipe(Effect.mapError((e) => (e instanceof CommandFailed ? e : toCommandError(e))))
    yield* options.output === undefined ? body(write) : OutputFile.writeFile(options.output, body)
  }).pipe(Effect.provide(StoreLayers.readStoreLayer(settings)))
