/**
 * The durable session log as a service. Three layers implement it (JSONL, the
 * embedded default; SQLite; memory for tests) and one conformance suite pins
 * them to the same behaviour.
 *
 * Writing takes an exclusive lease per session (one writer across processes).
 * `create` and `open` take it; `append` to a session this store has not opened
 * opens it first. Leases are released with `release` or when the layer's scope
 * closes.
 */
import { Context, type Effect, type Stream } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import type { Holder, StoreError } from "./StoreError.js"

/**
 * Where a session's last turn stands: `idle` (it ended), `running` (it has no
 * end and a live process holds the session: the turn is in flight there) or
 * `interrupted` (no end, and no live holder: a process stopped mid-turn; the
 * next open closes the turn).
 */
export type SessionStatus = "idle" | "running" | "interrupted"

export interface SessionSummary {
  readonly id: SessionId
  readonly cwd: string
  readonly createdAt: string
  readonly updatedAt: string
  readonly turns: number
  /** The title given at create, else the start of the first user message (see `Summary.titleOf`). */
  readonly title: string
  readonly status: SessionStatus
}

/** A stored session that cannot be read, and why. */
export interface Unreadable {
  readonly id: string
  readonly error: StoreError
}

export interface SessionList {
  readonly sessions: ReadonlyArray<SessionSummary>
  readonly unreadable: ReadonlyArray<Unreadable>
}

export interface ListOptions {
  /** Only the sessions whose working directory is this one. */
  readonly cwd?: string
}

/** What loading had to repair or found, reported to the user. */
export interface Recovery {
  /**
   * A torn tail cut off at open (or, for `read`, found and left in place): its
   * first line (1-based, the header is line 1), its size, and the sidecar file
   * its bytes were kept in.
   */
  readonly tornTail?: { readonly sidecar?: string; readonly bytes: number; readonly line: number }
  /** Events appended at open to close a turn left open by a dead process. */
  readonly closedTurn?: ReadonlyArray<SessionLog.SessionEvent>
  /**
   * `read` only: the last turn has no `turn/end` (a turn in flight, or one a
   * dead process left open, which the next `open` closes). `seq` is its `turn/start`.
   */
  readonly openTurn?: {
    readonly seq: number
    /** The live process holding the session's lease, if any: the turn is in flight there. */
    readonly holder?: Holder
  }
  /**
   * `recovery` only (JSONL): temporary files a process that stopped midway
   * left beside the log (a torn tail's unfinished copy, a log never
   * published), each with its size. They hold nothing the log does not; the
   * next `open` (or `create`) of the session removes them.
   */
  readonly leftovers?: ReadonlyArray<{ readonly file: string; readonly bytes: number }>
}

export interface LoadedSession {
  readonly header: SessionLog.SessionHeader
  readonly events: ReadonlyArray<SessionLog.SessionEvent>
  readonly recovery: Recovery
}

export interface Service {
  /**
   * A new session, durable when this returns: its header is written and
   * synced, so another process can `open` or `read` it before any event (it
   * is not listed until it has one). Takes the lease. `id` gives the new
   * session a chosen id; an id this store holds, or one that is stored, is
   * refused. `createdAt` and `version` keep the header of a session written
   * elsewhere (an import): the session keeps its creation time, and a log of
   * an earlier format version stays in that version, so the build that wrote
   * it can still read it. A chosen id must be one every store serves
   * (`isSessionId`); another is refused, nothing written.
   */
  readonly create: (options: {
    readonly cwd: string
    readonly title?: string
    readonly id?: SessionId
    readonly createdAt?: string
    /** A log format version this build writes (1 to `SessionLog.LOG_VERSION`); the newest by default. */
    readonly version?: number
    /**
     * Events the session starts with (seq from 1), written with its header in
     * one durable step — all of them, or, when that fails, no session at all
     * (an import: a JSONL log is published whole under its name, a database
     * writes it in one transaction).
     */
    readonly events?: ReadonlyArray<SessionLog.SessionEvent>
  }) => Effect.Effect<SessionId, StoreError>
  /**
   * Takes the lease and runs recovery: a torn tail is cut (kept in a sidecar), an open turn closed durably.
   * A session this store already holds is returned as it is (its turn in flight is live, not a crash).
   *
   * The events are what continuing needs: every event except the raw chunks
   * (`assistant/chunk`, `assistant/chunks`) of completed steps — those
   * followed by any other event, already assembled into their message. Those
   * lines are checked as far as integrity needs (intact JSON, seq in order;
   * damage is refused as in `read`) but not decoded. Raw chunks that end the
   * log (the step in flight when a process stopped) are decoded and returned.
   * `read` returns every event.
   */
  readonly open: (id: SessionId) => Effect.Effect<LoadedSession, StoreError>
  /**
   * Appends events whose seq continue the log exactly (`StaleWriter` otherwise).
   * May buffer until the next `flush`.
   */
  readonly append: (id: SessionId, events: ReadonlyArray<SessionLog.SessionEvent>) => Effect.Effect<void, StoreError>
  /** A barrier: when it returns, every appended event is written and fsynced. */
  readonly flush: (id: SessionId) => Effect.Effect<void, StoreError>
  /**
   * Reads a session without changing anything (no lease, no repair); what needs
   * repair is reported in `recovery`. Includes the events this store appended
   * (it flushes its own buffer of that session first).
   */
  readonly read: (id: SessionId) => Effect.Effect<LoadedSession, StoreError>
  /**
   * The stored sessions that have events, most recently updated first, and the
   * ones that cannot be read (a damaged header, a newer version), each with
   * why: one bad session never hides the others. Fails only when the sessions
   * cannot be listed at all. With `cwd`, only the sessions of that directory
   * are listed (the unreadable ones all are: a damaged log may not say whose
   * it is); the JSONL store then keeps what it had to read of the latest of
   * them, so a following `open` of it (`run --continue`) does not read it again.
   */
  readonly list: (options?: ListOptions) => Effect.Effect<SessionList, StoreError>
  /**
   * The header of a stored session (read without the events; no lease).
   */
  readonly header: (id: SessionId) => Effect.Effect<SessionLog.SessionHeader, StoreError>
  /**
   * What is stored now, from `fromSeq` on (1: every event), read a page at a
   * time so the log is never held whole; it ends at the last stored event. It
   * checks the log as `read` does and fails with the same error, naming the
   * file (or database) and line, where `read` would fail; nothing is skipped.
   * A torn tail ends it, as `read` leaves it out (see `recovery`). Includes
   * the events this store appended (its buffer of the session is flushed first).
   */
  readonly stream: (id: SessionId, fromSeq: number) => Stream.Stream<SessionLog.SessionEvent, StoreError>
  /**
   * What `read` reports in `recovery` (a torn tail; an open last turn and the
   * live process writing it), found by one streaming pass without holding the
   * events. `onEvent` is given each event of that pass, in order, so a reader
   * that needs something of the whole log before it prints (the latest
   * compaction) learns it in the same pass.
   */
  readonly recovery: (id: SessionId, onEvent?: (event: SessionLog.SessionEvent) => void) => Effect.Effect<Recovery, StoreError>
  /**
   * The events from `fromSeq` on as they are flushed — by this store, another
   * process or another machine — each once, in seq order, never ending on its
   * own (interrupt it to stop). Stored events come first, then each flushed
   * batch soon after its flush (a write in progress is waited for, not read
   * half). Damage fails it as `stream` does.
   */
  readonly follow: (id: SessionId, fromSeq: number) => Stream.Stream<SessionLog.SessionEvent, StoreError>
  /** Flushes and gives up the lease. */
  readonly release: (id: SessionId) => Effect.Effect<void, StoreError>
  /**
   * Deletes a session and everything stored of it (its events, its header,
   * its index entry), under its lease: a session a live process holds is
   * refused with `SessionLocked`; one this store holds is flushed and
   * released first. In the databases it is one transaction; a JSONL log is
   * unlinked before its index entry. `SessionNotFound` if nothing is stored.
   */
  readonly delete: (id: SessionId) => Effect.Effect<void, StoreError>
}

export class SessionStore extends Context.Tag("@turnlog/store/SessionStore")<SessionStore, Service>() {}
