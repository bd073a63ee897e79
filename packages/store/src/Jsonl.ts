/**
 * The JSONL layer, the embedded default: `$TURNLOG_HOME/sessions/<id>.jsonl`,
 * one header line then one event per line (the README's "The durable log"), a lock file per
 * session for the one writer, torn tails cut at `open` into `<id>.jsonl.torn-<n>`;
 * temporary files a stopped process left beside a log are reported by
 * `recovery` and removed by the next holder of the session's lease.
 * The file logic lives in `internal/Jsonl*`; this module maps it onto the
 * shared store logic and maps operating-system failures to `StoreIOError` once.
 *
 * `list` reads the index of sessions (`internal/JsonlIndex`, `<home>/index/`)
 * and a log only when its entry is missing or does not match it; the lease
 * holder rewrites a session's entry after each write.
 */
import { join } from "node:path"
import { Effect, Either, Layer } from "effect"
import { isSessionId, type SessionId, sessionIdProblem, type SessionLog } from "@turnlog/protocol"
import { type Backend, makeCore, type Writer } from "./internal/Core.js"
import { isRawChunk } from "./internal/EventLine.js"
import { type FileIo, nodeIo } from "./internal/FileIo.js"
import { acquire, liveHolder } from "./internal/FileLease.js"
import {
  AlreadyExists,
  appendEvents,
  completePublish,
  cutTail,
  leftoversOf,
  type OpenLog,
  openLog,
  publish,
  type Published,
  removeLeftovers,
} from "./internal/JsonlFile.js"
import {
  type Entry,
  entryFile,
  entryOf,
  EntryWriter,
  readEntry,
  sameStamp,
  type Stamp,
  stampAt,
  stampOf,
  summaryOf,
  writeEntry,
} from "./internal/JsonlIndex.js"
import { removeLog } from "./internal/JsonlRemove.js"
import { openForRead, type Scan, scanLog, summarizeOpen } from "./internal/JsonlScan.js"
import { type Position, readPage, START } from "./internal/JsonlTail.js"
import { POLL } from "./internal/Streaming.js"
import { SessionStore, type SessionSummary, type Unreadable } from "./SessionStore.js"
import { SessionCorrupt, SessionLocked, SessionNotFound, type StoreError, StoreIOError } from "./StoreError.js"
import { byRecency, SummaryBuilder, type Tally } from "./Summary.js"

export interface JsonlOptions {
  /** `$TURNLOG_HOME`: logs go to `<home>/sessions`. */
  readonly home: string
  /** The program named in the lock files this store writes (`Holder.program`). */
  readonly program?: string
}

/** Runs synchronous file work, mapping what the operating system throws once. */
const attempt = <A>(path: string, operation: string, f: () => A): Effect.Effect<A, StoreIOError> =>
  Effect.try({ try: f, catch: (cause) => new StoreIOError({ path, operation, cause }) })

/** A log `list` read in full, kept for `open`: its scan, the stamp it was read at, its summary. */
type Kept = Scan & { readonly id: string; readonly stamp: Stamp; readonly summary: SessionSummary }

/** Events per page of a streaming read. */
const PAGE = 500

export const makeJsonl = (options: JsonlOptions, io: FileIo = nodeIo) =>
  Effect.gen(function*() {
    const dir = join(options.home, "sessions")
    yield* attempt(dir, "create directory", () => io.mkdirSync(dir, { recursive: true }))
    const fileOf = (id: SessionId) => join(dir, `${id}.jsonl`)
    const indexDir = join(options.home, "index")
    // The size each session's log had when it was opened for writing.
    const scanned = new Map<string, number>()
    // What each session held here summarises to so far, carried into its index entry.
    const tallies = new Map<string, Tally>()
    let indexMade = false

    /**
     * Records the summary of a log this store just wrote. The index is a
     * cache: a failure to write it costs the next `list` a read of the log,
     * never the write it follows, so it is not reported.
     */
    const index = (entry: EntryWriter, header: SessionLog.SessionHeader, tally: Tally, log: Stamp): void => {
      try {
        if (!indexMade) {
          io.mkdirSync(indexDir, { recursive: true })
          indexMade = true
        }
        entry.write(entryOf(header, tally, log))
      } catch {
        // See above: the next `list` reads the log instead.
      }
    }
    const checked = (id: SessionId): Effect.Effect<string, SessionNotFound> =>
      isSessionId(id) ? Effect.succeed(fileOf(id)) : Effect.fail(new SessionNotFound({ sessionId: id }))

    /**
     * What `list` read in full of the latest session of the directory it was
     * asked about: `open` of that session uses it while the log is exactly
     * as it was read (its stamp, taken under the lease), so choosing and
     * opening a session read its log once.
     */
    let kept: Kept | undefined

    /** Records the entry of a log read in full, making the index if it is gone: a cache, so a failure is not reported. */
    const rebuild = (entry: Entry): void => {
      try {
        if (!indexMade) {
          io.mkdirSync(indexDir, { recursive: true })
          indexMade = true
        }
        writeEntry(io, indexDir, entry)
      } catch {
        // The next `list` reads the log again.
      }
    }

    /**
     * A log's summary from its index entry when the entry matches the log
     * exactly (then the log is not even opened: `list` costs a stat and the
     * entry's read per session), else from the log itself (then recorded, when the log read
     * whole and unchanged while it was read, for the next `list`). A log of
     * directory `cwd` that is read is kept (see `kept`) when it is the latest so far.
     */
    const summaryFromIndex = (file: string, id: string, cwd?: string): Either.Either<SessionSummary | undefined, StoreError> => {
      // An entry that matches the log as it is now answers without the log being opened.
      const indexed = readEntry(indexDir, id)
      const now = indexed === undefined ? undefined : stampAt(file)
      if (indexed !== undefined && now !== undefined && sameStamp(indexed.log, now)) return Either.right(summaryOf(indexed))
      const opened = openForRead(io, file)
      if (Either.isLeft(opened)) return Either.left(opened.left)
      const fd = opened.right
      if (fd === undefined) return Either.left(new SessionNotFound({ sessionId: id as SessionId }))
      try {
        const before = stampOf(fd)
        if (indexed !== undefined && sameStamp(indexed.log, before)) return Either.right(summaryOf(indexed))
        // What `open` needs of the log: every event but the raw chunks of completed steps.
        const events: Array<SessionLog.SessionEvent> = []
        let chunks: Array<SessionLog.SessionEvent> = []
        const gather = (event: SessionLog.SessionEvent) => {
          if (isRawChunk(event.type)) return void chunks.push(event)
          if (chunks.length > 0) chunks = []
          events.push(event)
        }
        return Either.map(
          summarizeOpen(io, fd, file, id, (header) => (cwd !== undefined && header.cwd === cwd ? gather : undefined)),
          (found) => {
            const unchanged = sameStamp(before, stampOf(fd))
            if (found.torn === undefined && unchanged) rebuild(entryOf(found.header, found.tally, before))
            if (
              unchanged && found.summary !== undefined && found.header.cwd === cwd &&
              (kept === undefined || byRecency(found.summary, kept.summary) < 0)
            ) {
              kept = {
                id,
                stamp: before,
                summary: found.summary,
                header: found.header,
                events: chunks.length > 0 ? events.concat(chunks) : events,
                size: found.size,
                ...(found.torn !== undefined ? { torn: found.torn } : {}),
              }
            }
            return found.summary
          },
        )
      } finally {
        io.closeSync(fd)
      }
    }

    /** The scan `list` kept of session `id` (see `kept`), if the log is still exactly as it was read; it is used once. */
    const takeKept = (file: string, id: string): Scan | undefined => {
      const scan = kept
      if (scan === undefined || scan.id !== id) return undefined
      kept = undefined
      const opened = openForRead(io, file)
      if (Either.isLeft(opened) || opened.right === undefined) return undefined
      try {
        return sameStamp(scan.stamp, stampOf(opened.right)) ? scan : undefined
      } finally {
        io.closeSync(opened.right)
      }
    }

    const backend: Backend = {
      ...(options.program !== undefined ? { program: options.program } : {}),
      acquire: (id) =>
        Effect.gen(function*() {
          const file = yield* checked(id)
          const lockFile = join(dir, `${id}.lock`)
          const lease = yield* attempt(lockFile, "take the lease", () => acquire(io, lockFile, options.program))
          if (lease._tag === "Locked") return yield* new SessionLocked({ sessionId: id, holder: lease.holder })
          try {
            // Under the lease nobody else writes these: they are what a stopped process left.
            removeLeftovers(io, file, false)
          } catch {
            // Still there: the write that needs the name says so.
          }
          let log: OpenLog | undefined
          const entry = new EntryWriter(io, indexDir, id)
          // A first write that failed after its file was linked into place: what
          // it published, so the retry completes it instead of publishing again.
          let published: { readonly log: Published; readonly count: number } | undefined
          // Called once the events are durable: it must not fail the write, or the
          // events would stay buffered and be written again.
          const written = (header: SessionLog.SessionHeader, events: ReadonlyArray<SessionLog.SessionEvent>, first: boolean) => {
            const from = first ? undefined : tallies.get(id)
            if (!first && from === undefined) return
            try {
              const builder = new SummaryBuilder(header, from)
              for (const event of events) builder.addEvent(event)
              const tally = builder.tally()
              tallies.set(id, tally)
              if (log !== undefined) index(entry, header, tally, stampOf(log.fd))
            } catch {
              // No summary to carry forward: the index entry no longer matches the log, so `list` reads the log.
              tallies.delete(id)
            }
          }
          const writer: Writer = {
            write: (header, events, first) =>
              attempt(file, first ? "create" : "append to", () => {
                if (log === undefined) {
                  if (first) {
                    published ??= { log: publish(io, file, header, events), count: events.length }
                    log = completePublish(io, file, published.log)
                    // A retry may carry events appended since the failed attempt.
                    const rest = events.slice(published.count)
                    published = undefined
                    if (rest.length > 0) appendEvents(io, log, rest)
                    written(header, events, true)
                    return
                  }
                  log = openLog(io, file, scanned.get(id) ?? 0, header.version)
                }
                appendEvents(io, log, events)
                written(header, events, false)
              }).pipe(
                Effect.mapError((error) =>
                  error instanceof StoreIOError && error.cause instanceof AlreadyExists
                    ? new StoreIOError({ path: file, operation: "create (a file already exists; it is left as it is)", cause: error.cause })
                    : error
                ),
              ),
            release: Effect.sync(() => {
              scanned.delete(id)
              tallies.delete(id)
              if (log !== undefined) {
                try {
                  io.closeSync(log.fd)
                } catch {
                  // Closing cannot lose data: every write was synced.
                }
                log = undefined
              }
              entry.close()
              lease.release()
            }),
            remove: attempt(file, "delete", () => {
              if (log !== undefined) {
                try {
                  io.closeSync(log.fd)
                } catch {
                  // It is being deleted: nothing in it is kept.
                }
                log = undefined
              }
              entry.close()
              return removeLog(io, file, entryFile(indexDir, id))
            }),
          }
          return writer
        }),

      load: (id, repair) =>
        Effect.gen(function*() {
          const file = yield* checked(id)
          // Opening for writing needs no completed step's raw chunks (see `SessionStore.open`).
          // A log `list` just read for this `open` (under the lease now, unchanged since) is not read again.
          const scan = (repair ? yield* attempt(file, "read", () => takeKept(file, id)) : undefined) ??
            (yield* Effect.flatten(attempt(file, "read", () => scanLog(io, file, id, repair))))
          if (repair) {
            // What a writer of this session will append after (the torn tail cut), and its summary so far.
            scanned.set(id, scan.size)
            const builder = new SummaryBuilder(scan.header)
            for (const event of scan.events) builder.addEvent(event)
            tallies.set(id, builder.tally())
          }
          if (scan.torn === undefined) return { header: scan.header, events: scan.events }
          const torn = scan.torn
          if (!repair) {
            return { header: scan.header, events: scan.events, tornTail: { bytes: torn.bytes, line: torn.line } }
          }
          const sidecar = yield* attempt(file, "cut the torn tail of", () => {
            try {
              // Copies of this tail by earlier builds, killed before they cut it.
              removeLeftovers(io, file, true)
            } catch {
              // A leftover that stays costs room, not data: the tail is copied again.
            }
            return cutTail(io, file, torn)
          })
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
            Effect.flatMap(Effect.flatten(attempt(file, "read", () => readPage(io, file, id, START, 1, 0))), (page) => Effect.succeed(page.header!))),
        tail: (id, fromSeq) =>
          Effect.map(checked(id), (file) => {
            let position: Position = START
            let pending: { readonly line: number; readonly bytes: number } | undefined
            return {
              next: Effect.flatten(attempt(file, "read", () =>
                readPage(io, file, id, position, fromSeq, PAGE))).pipe(
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
        leftovers: (id, torn) => Effect.flatMap(checked(id), (file) => attempt(file, "look beside", () => leftoversOf(io, file, torn))),
      },

      list: (options) =>
        Effect.flatMap(attempt(dir, "list", () => io.readdirSync(dir)), (names) =>
          // One plain loop: a home of thousands of sessions costs a stat and an entry's read each, and nothing more.
          Effect.sync(() => {
            kept = undefined
            const sessions: Array<SessionSummary> = []
            const unreadable: Array<Unreadable> = []
            for (const name of names) {
              if (!name.endsWith(".jsonl") || name.startsWith(".")) continue
              const id = name.slice(0, -".jsonl".length)
              // Ids become file names: anything that could leave the directory is no session of ours.
              if (!isSessionId(id)) {
                // Not a name this store gives or reads back: named, so it is neither
                // listed as a session nobody can open nor passed over in silence.
                unreadable.push({
                  id,
                  error: new SessionCorrupt({
                    file: join(dir, name),
                    line: 1,
                    detail: `"${id}" is not a session id (${sessionIdProblem(id)})`,
                  }),
                })
                continue
              }
              const file = join(dir, name)
              let summary: Either.Either<SessionSummary | undefined, StoreError>
              try {
                summary = summaryFromIndex(file, id, options?.cwd)
              } catch (cause) {
                summary = Either.left(new StoreIOError({ path: file, operation: "read", cause }))
              }
              if (Either.isRight(summary)) {
                if (summary.right !== undefined) sessions.push(summary.right)
              } else if (summary.left._tag !== "SessionNotFound") {
                // (Removed between the listing and the read: not a session any more.)
                unreadable.push({ id, error: summary.left })
              }
            }
            // Kept only if it is the one a caller choosing the latest of its directory opens.
            const read = kept as Kept | undefined
            if (read !== undefined && sessions.filter((s) => s.cwd === options?.cwd).sort(byRecency)[0]?.id !== read.id) {
              kept = undefined
            }
            return { sessions, unreadable }
          })),
    }
    return yield* makeCore(backend)
  })

export const layerJsonl = (options: JsonlOptions) => Layer.scoped(SessionStore, makeJsonl(options))
