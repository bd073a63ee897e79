/**
 * The JSONL layer, the embedded default: `$TURNLOG_HOME/sessions/<id>.jsonl`,
 * one header line then one event per line (see DESIGN.md), a lock file per
 * session for the one writer, torn tails cut at `open` into `<id>.jsonl.torn-<n>`.
 * The file logic lives in `internal/Jsonl*`; this module maps it onto the
 * shared store logic and maps operating-system failures to `StoreIOError` once.
 */
import { join } from "node:path"
import { Effect, Layer } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { type Backend, makeCore, type Writer } from "./internal/Core.js"
import { type FileIo, nodeIo } from "./internal/FileIo.js"
import { acquire, liveHolder } from "./internal/FileLease.js"
import { AlreadyExists, appendEvents, completePublish, cutTail, type OpenLog, openLog, publish } from "./internal/JsonlFile.js"
import { scanLog, summarizeLog } from "./internal/JsonlScan.js"
import { type Position, readPage, START } from "./internal/JsonlTail.js"
import { POLL } from "./internal/Streaming.js"
import { SessionStore, type SessionSummary, type Unreadable } from "./SessionStore.js"
import { SessionCorrupt, SessionLocked, SessionNotFound, StoreIOError } from "./StoreError.js"

export interface JsonlOptions {
  /** `$TURNLOG_HOME`: logs go to `<home>/sessions`. */
  readonly home: string
  /** The program named in the lock files this store writes (`Holder.program`). */
  readonly program?: string
}

/** Runs synchronous file work, mapping what the operating system throws once. */
const attempt = <A>(path: string, operation: string, f: () => A): Effect.Effect<A, StoreIOError> =>
  Effect.try({ try: f, catch: (cause) => new StoreIOError({ path, operation, cause }) })

/** Events per page of a streaming read. */
const PAGE = 500

// Ids become file names: anything that could leave the directory is no session of ours.
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

export const makeJsonl = (options: JsonlOptions, io: FileIo = nodeIo) =>
  Effect.gen(function*() {
    const dir = join(options.home, "sessions")
    yield* attempt(dir, "create directory", () => io.mkdirSync(dir, { recursive: true }))
    const fileOf = (id: SessionId) => join(dir, `${id}.jsonl`)
    // The size each session's log had when it was opened for writing.
    const scanned = new Map<string, number>()
    const checked = (id: SessionId): Effect.Effect<string, SessionNotFound> =>
      SAFE_ID.test(id) ? Effect.succeed(fileOf(id)) : Effect.fail(new SessionNotFound({ sessionId: id }))

    const backend: Backend = {
      ...(options.program !== undefined ? { program: options.program } : {}),
      acquire: (id) =>
        Effect.gen(function*() {
          const file = yield* checked(id)
          const lockFile = join(dir, `${id}.lock`)
          const lease = yield* attempt(lockFile, "take the lease", () => acquire(io, lockFile, options.program))
          if (lease._tag === "Locked") return yield* new SessionLocked({ sessionId: id, holder: lease.holder })
          let log: OpenLog | undefined
          // A first write that failed after its file was linked into place: what
          // it published, so the retry completes it instead of publishing again.
          let published: { readonly size: number; readonly count: number } | undefined
          const writer: Writer = {
            write: (header, events, first) =>
              attempt(file, first ? "create" : "append to", () => {
                if (log === undefined) {
                  if (first) {
                    published ??= { size: publish(io, file, header, events), count: events.length }
                    log = completePublish(io, file, published.size)
                    // A retry may carry events appended since the failed attempt.
                    const rest = events.slice(published.count)
                    published = undefined
                    if (rest.length > 0) appendEvents(io, log, rest)
                    return
                  }
                  log = openLog(io, file, scanned.get(id) ?? 0)
                }
                appendEvents(io, log, events)
              }).pipe(
                Effect.mapError((error) =>
                  error instanceof StoreIOError && error.cause instanceof AlreadyExists
                    ? new StoreIOError({ path: file, operation: "create (a file already exists; it is left as it is)", cause: error.cause })
                    : error
                ),
              ),
            release: Effect.sync(() => {
              scanned.delete(id)
              if (log !== undefined) {
                try {
                  io.closeSync(log.fd)
                } catch {
                  // Closing cannot lose data: every write was synced.
                }
                log = undefined
              }
              lease.release()
            }),
          }
          return writer
        }),

      load: (id, repair) =>
        Effect.gen(function*() {
          const file = yield* checked(id)
          const scan = yield* Effect.flatten(attempt(file, "read", () => scanLog(io, file, id)))
          // What a writer of this session will append after (the torn tail cut).
          if (repair) scanned.set(id, scan.size)
          if (scan.torn === undefined) return { header: scan.header, events: scan.events }
          const torn = scan.torn
          if (!repair) {
            return { header: scan.header, events: scan.events, tornTail: { bytes: torn.bytes, line: torn.line } }
          }
          const sidecar = yield* attempt(file, "cut the torn tail of", () => cutTail(io, file, torn))
          return { header: scan.header, events: scan.events, tornTail: { sidecar, bytes: torn.bytes, line: torn.line } }
        }),

      holderOf: (id) =>
        Effect.flatMap(checked(id), () => {
          const lockFile = join(dir, `${id}.lock`)
          return attempt(lockFile, "read the lease", () => liveHolder(io, lockFile))
        }),

      streaming: {
        header: (id) =>
          Effect.flatMap(checked(id), (file) =>
            Effect.flatMap(Effect.flatten(attempt(file, "read", () => readPage(io, file, id, START, 1, 0))), (page) =>
              Effect.succeed(page.header!))),
        tail: (id, fromSeq) =>
          Effect.map(checked(id), (file) => {
            let position: Position = START
            let pending: { readonly line: number; readonly bytes: number } | undefined
            return {
              next: Effect.flatten(attempt(file, "read", () => readPage(io, file, id, position, fromSeq, PAGE))).pipe(
                Effect.map((page) => {
                  position = page.position
                  pending = page.pending
                  return page.events
                }),
              ),
              pending: () => pending,
            }
          }),
        pollInterval: POLL,
      },

      list: () =>
        Effect.gen(function*() {
          const names = yield* attempt(dir, "list", () => io.readdirSync(dir))
          const sessions: Array<SessionSummary> = []
          const unreadable: Array<Unreadable> = []
          for (const name of names) {
            if (!name.endsWith(".jsonl") || name.startsWith(".")) continue
            const id = name.slice(0, -".jsonl".length)
            if (!SAFE_ID.test(id)) {
              // Not a name this store gives or reads back: named, so it is neither
              // listed as a session nobody can open nor passed over in silence.
              unreadable.push({
                id,
                error: new SessionCorrupt({
                  file: join(dir, name),
                  line: 1,
                  detail: `"${id}" is not a session id (letters, digits, ".", "_" and "-", not first)`,
                }),
              })
              continue
            }
            const summary = yield* Effect.flatten(attempt(join(dir, name), "read", () => summarizeLog(io, join(dir, name), id))).pipe(
              // Removed between the listing and the read: not a session any more.
              Effect.catchTag("SessionNotFound", () => Effect.succeed(undefined)),
              Effect.catchAll((error) => Effect.sync(() => void unreadable.push({ id, error }))),
            )
            if (summary !== undefined) sessions.push(summary)
          }
          return { sessions, unreadable }
        }),
    }
    return yield* makeCore(backend)
  })

export const layerJsonl = (options: JsonlOptions) => Layer.scoped(SessionStore, makeJsonl(options))
