/**
 * The store logic every layer shares, so the four layers (JSONL, SQLite, PostgreSQL, memory) cannot drift apart:
 * leases held by this store, the seq check, buffering until `flush`, recovery
 * at `open`, flush-and-release when the layer's scope closes. A layer supplies
 * only a `Backend`: how to take a lease, load, write and list its storage.
 */
import { Console, Effect, Stream } from "effect"
import { isSessionId, makeSessionId, type SessionId, sessionIdProblem, SessionLog } from "@turnlog/protocol"
import { closeOpenTurn, openTurnStart } from "../OpenTurn.js"
import { byRecency } from "../Summary.js"
import type { ListOptions, LoadedSession, Recovery, Service, SessionList, SessionSummary } from "../SessionStore.js"
import { type Holder, SessionNotFound, type StoreError, StaleWriter, StoreIOError } from "../StoreError.js"
import { withoutSettledChunks } from "./EventLine.js"
import { self } from "./Liveness.js"
import * as SessionLocks from "./SessionLocks.js"
import * as Streaming from "./Streaming.js"

/** A session as storage holds it, plus what loading found or repaired. */
export interface Loaded {
  readonly header: SessionLog.SessionHeader
  readonly events: ReadonlyArray<SessionLog.SessionEvent>
  readonly tornTail?: NonNullable<Recovery["tornTail"]>
}

/** The write side of one leased session. */
export interface Writer {
  /**
   * Appends events durably: when it succeeds they are written and synced.
   * `first` materialises the session (header included) without overwriting
   * anything. A failure leaves storage as it was, so the same call can be retried.
   */
  readonly write: (
    header: SessionLog.SessionHeader,
    events: ReadonlyArray<SessionLog.SessionEvent>,
    first: boolean,
  ) => Effect.Effect<void, StoreError>
  /** Gives up the lease (and any open handle). Never fails. */
  readonly release: Effect.Effect<void>
  /**
   * Deletes everything stored of the session while the lease is held: whether
   * anything was. A failure leaves it as it was (or, for files, the log gone
   * and its index entry left, which `list` ignores without the log).
   */
  readonly remove: Effect.Effect<boolean, StoreError>
}

export interface Backend {
  /** Takes the exclusive lease of a session (`SessionLocked`, naming the holder, if a live process holds it). */
  readonly acquire: (id: SessionId) => Effect.Effect<Writer, StoreError>
  /**
   * Loads a session; `repair` (opening to write) cuts a torn tail (keeping
   * its bytes), otherwise it is only reported. With `repair` the raw chunks
   * of completed steps may be left out (see `withoutSettledChunks`): they are
   * checked as far as integrity needs, not decoded.
   */
  readonly load: (id: SessionId, repair: boolean) => Effect.Effect<Loaded, StoreError>
  /**
   * Summaries of the stored sessions that have events, in any order, and the
   * ones that cannot be read. `options.cwd` is a hint (the caller filters):
   * the sessions of that directory are the ones about to be opened.
   */
  readonly list: (options?: ListOptions) => Effect.Effect<SessionList, StoreError>
  /** The live process (not this store) holding the session's lease, if any. */
  readonly holderOf?: (id: SessionId) => Effect.Effect<Holder | undefined, StoreError>
  /**
   * The live processes holding leases, by session, in one pass (one query): what `list`
   * asks when sessions have open turns, instead of `holderOf` for each.
   */
  readonly holders?: () => Effect.Effect<ReadonlyMap<SessionId, Holder>, StoreError>
  /** The program this store's leases name (`Holder.program`), if it was told one. */
  readonly program?: string
  /** Reading a session a page at a time, and hints of new events (see `Streaming`). */
  readonly streaming: Streaming.Streaming
}

interface Held {
  readonly header: SessionLog.SessionHeader
  readonly writer: Writer
  nextSeq: number
  pending: Array<SessionLog.SessionEvent>
}

/** The live holder of a session's lease; none when the layer cannot tell or the lease cannot be read. */
const liveHolderOf = (backend: Backend) => (id: SessionId): Effect.Effect<Holder | undefined> =>
  backend.holderOf === undefined ? Effect.succeed(undefined) : Effect.orElseSucceed(backend.holderOf(id), () => undefined)

const recoveryOf = (loaded: Loaded, closed: ReadonlyArray<SessionLog.SessionEvent>): Recovery => ({
  ...(loaded.tornTail !== undefined ? { tornTail: loaded.tornTail } : {}),
  ...(closed.length > 0 ? { closedTurn: closed } : {}),
})

/** What `read` found, without changing anything; `holder`, the live process holding the session, if any. */
const foundBy = (loaded: Loaded, holder?: Holder): LoadedSession => {
  const start = openTurnStart(loaded.events)
  const openTurn = start < 0
    ? undefined
    : holder === undefined
    ? { seq: loaded.events[start]!.seq }
    : { seq: loaded.events[start]!.seq, holder }
  return {
    header: loaded.header,
    events: loaded.events,
    recovery: {
      ...(loaded.tornTail !== undefined ? { tornTail: loaded.tornTail } : {}),
      ...(openTurn !== undefined ? { openTurn } : {}),
    },
  }
}

// The id quoted short: a hostile id must not be echoed whole.
const notAnId = (id: string) =>
  new StoreIOError({
    path: JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id),
    operation: "create session",
    cause: new Error(`not a session id (${sessionIdProblem(id)})`),
  })

const exists = (id: SessionId) => new StoreIOError({ path: id, operation: "create", cause: new Error(`session ${id} already exists`) })

export const makeCore = (backend: Backend) =>
  Effect.gen(function*() {
    const held = new Map<SessionId, Held>()
    const liveHolder = liveHolderOf(backend)
    // One operation at a time per session (see `SessionLocks`): a stalled write
    // of one session never holds up another's.
    const serial = SessionLocks.make<SessionId>()

    const flushHeld = (session: Held): Effect.Effect<void, StoreError> => {
      if (session.pending.length === 0) return Effect.void
      const batch = session.pending
      return session.writer.write(session.header, batch, false).pipe(
        // Only a successful write takes the batch out of the buffer: a retry sends it again.
        Effect.tap(() =>
          Effect.sync(() => {
            session.pending = session.pending.length === batch.length ? [] : session.pending.slice(batch.length)
          })
        ),
      )
    }

    const openUnheld = (id: SessionId): Effect.Effect<LoadedSession, StoreError> =>
      Effect.gen(function*() {
        const writer = yield* backend.acquire(id)
        return yield* Effect.gen(function*() {
          const stored = yield* backend.load(id, true)
          const loaded = { ...stored, events: withoutSettledChunks(stored.events) }
          const closed = closeOpenTurn(loaded.events)
          if (closed.length > 0) yield* writer.write(loaded.header, closed, false)
          const last = closed[closed.length - 1] ?? loaded.events[loaded.events.length - 1]
          held.set(id, {
            header: loaded.header,
            writer,
            nextSeq: last === undefined ? 1 : last.seq + 1,
            pending: [],
          })
          return {
            header: loaded.header,
            events: closed.length > 0 ? [...loaded.events, ...closed] : loaded.events,
            recovery: recoveryOf(loaded, closed),
          }
        }).pipe(Effect.onError(() => writer.release))
      })

    // Events appended by this store are part of what it reads back.
    const readHeld = (id: SessionId, session: Held): Effect.Effect<LoadedSession, StoreError> =>
      Effect.flatMap(flushHeld(session), () => Effect.map(backend.load(id, false), (loaded) => foundBy(loaded, self(backend.program))))

    const releaseHeld = (id: SessionId, session: Held): Effect.Effect<void, StoreError> =>
      flushHeld(session).pipe(
        Effect.ensuring(Effect.suspend(() => {
          held.delete(id)
          return session.writer.release
        })),
      )

    // A streaming read sees what this store appended: its buffer of the session is flushed first.
    const flushOwn = (id: SessionId): Effect.Effect<void, StoreError> =>
      serial(
        id,
        Effect.suspend(() => {
          const session = held.get(id)
          return session === undefined ? Effect.void : flushHeld(session)
        }),
      )

    const service: Service = {
      create: (options) => {
        const id = options.id ?? makeSessionId()
        return serial(
          id,
          Effect.gen(function*() {
            if (options.id !== undefined && !isSessionId(options.id)) return yield* notAnId(options.id)
            const events = options.events ?? []
            for (let i = 0; i < events.length; i++) {
              if (events[i]!.seq !== i + 1) return yield* new StaleWriter({ sessionId: id, expectedSeq: i + 1, gotSeq: events[i]!.seq })
            }
            const version = options.version ?? SessionLog.LOG_VERSION
            if (!Number.isInteger(version) || version < 1 || version > SessionLog.LOG_VERSION) {
              return yield* Effect.dieMessage(`create: log version ${version} is not one this build writes (1 to ${SessionLog.LOG_VERSION})`)
            }
            if (held.has(id)) return yield* exists(id)
            const writer = yield* backend.acquire(id)
            if (options.id !== undefined) {
              const stored = yield* backend.load(id, false).pipe(
                Effect.as(true),
                Effect.catchTag("SessionNotFound", () => Effect.succeed(false)),
                Effect.onError(() => writer.release),
              )
              if (stored) {
                yield* writer.release
                return yield* exists(id)
              }
            }
            const header: SessionLog.SessionHeader = {
              type: "session",
              version,
              id,
              createdAt: options.createdAt ?? new Date().toISOString(),
              cwd: options.cwd,
              ...(options.title !== undefined ? { title: options.title } : {}),
            }
            // Durable before the id is handed out: another process (a new ACP
            // client loading the session) can open it before any turn is written.
            yield* writer.write(header, events, true).pipe(Effect.onError(() => writer.release))
            held.set(id, { header, writer, nextSeq: events.length + 1, pending: [] })
            return id
          }),
        )
      },

      open: (id) =>
        serial(
          id,
          Effect.suspend(() => {
            const session = held.get(id)
            // Already ours: the turn in flight is live, not a crash to recover from.
            return session !== undefined
              ? Effect.map(readHeld(id, session), (loaded) => ({
                ...loaded,
                events: withoutSettledChunks(loaded.events),
                recovery: {},
              }))
              : openUnheld(id)
          }),
        ),

      append: (id, events) =>
        serial(
          id,
          Effect.gen(function*() {
            if (events.length === 0) return
            let session = held.get(id)
            if (session === undefined) {
              yield* openUnheld(id)
              session = held.get(id)!
            }
            for (let i = 0; i < events.length; i++) {
              const expected = session.nextSeq + i
              if (events[i]!.seq !== expected) {
                return yield* new StaleWriter({ sessionId: id, expectedSeq: expected, gotSeq: events[i]!.seq })
              }
            }
            for (const event of events) session.pending.push(event)
            session.nextSeq += events.length
          }),
        ),

      flush: (id) =>
        serial(
          id,
          Effect.suspend(() => {
            const session = held.get(id)
            return session === undefined ? Effect.void : flushHeld(session)
          }),
        ),

      read: (id) =>
        serial(
          id,
          Effect.suspend(() => {
            const session = held.get(id)
            if (session !== undefined) return readHeld(id, session)
            return Effect.flatMap(backend.load(id, false), (loaded) =>
              // An open turn is in flight if a live process holds the session, else a dead one left it.
              openTurnStart(loaded.events) < 0 || backend.holderOf === undefined
                ? Effect.succeed(foundBy(loaded))
                : Effect.map(backend.holderOf(id), (holder) => foundBy(loaded, holder)))
          }),
        ),

      list: (options) =>
        Effect.gen(function*() {
          // Each held session flushed under its own lock (one of them may be released meanwhile).
          for (const id of Array.from(held.keys())) yield* flushOwn(id)
          const all = yield* backend.list(options)
          const cwd = options?.cwd
          const listed = cwd === undefined ? all : { ...all, sessions: all.sessions.filter((s) => s.cwd === cwd) }
          // A turn without an end is in flight where a live process holds the session (this one
          // included). A lease that cannot be read leaves the turn interrupted, as `open` would find it.
          const open = listed.sessions.some((summary) => summary.status !== "idle" && !held.has(summary.id))
          const holders = open && backend.holders !== undefined
            ? yield* Effect.orElseSucceed(backend.holders(), () => new Map<SessionId, Holder>())
            : undefined
          const sessions: Array<SessionSummary> = []
          for (const summary of listed.sessions) {
            const running = summary.status !== "idle" &&
              (held.has(summary.id) ||
                (holders !== undefined ? holders.has(summary.id) : (yield* liveHolder(summary.id)) !== undefined))
            sessions.push(running ? { ...summary, status: "running" } : summary)
          }
          return { sessions: sessions.sort(byRecency), unreadable: listed.unreadable }
        }),

      header: (id) => Effect.zipRight(flushOwn(id), backend.streaming.header(id)),

      stream: (id, fromSeq) => Stream.unwrap(Effect.as(flushOwn(id), Streaming.stream(backend.streaming, id, fromSeq))),

      recovery: (id, onEvent) =>
        Effect.zipRight(
          flushOwn(id),
          Streaming.recovery(
            backend.streaming,
            id,
            // A session this store holds is written here: its open turn is in flight in this process.
            (id) => held.has(id) ? Effect.succeed(self()) : backend.holderOf?.(id) ?? Effect.succeed(undefined),
            onEvent,
          ),
        ),

      follow: (id, fromSeq) => Stream.unwrap(Effect.as(flushOwn(id), Streaming.follow(backend.streaming, id, fromSeq))),

      release: (id) =>
        serial(
          id,
          Effect.suspend(() => {
            const session = held.get(id)
            return session === undefined ? Effect.void : releaseHeld(id, session)
          }),
        ),

      delete: (id) =>
        serial(
          id,
          Effect.gen(function*() {
            const session = held.get(id)
            if (session !== undefined) yield* releaseHeld(id, session)
            const writer = yield* backend.acquire(id)
            const removed = yield* writer.remove.pipe(Effect.ensuring(writer.release))
            if (!removed) return yield* new SessionNotFound({ sessionId: id })
          }),
        ),
    }

    yield* Effect.addFinalizer(() =>
      Effect.forEach(
        Array.from(held.keys()),
        (id) =>
          service.release(id).pipe(
            Effect.catchAll((error) => Console.error(`turnlog: closing session ${id}: ${error.message}`)),
          ),
        // A session whose write is stalled does not hold up closing the others.
        { discard: true, concurrency: "unbounded" },
      )
    )
    return service
  })
