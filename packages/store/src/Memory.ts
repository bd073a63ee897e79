/**
 * The memory layer, for tests of everything above the store. It keeps what a
 * durable layer would keep — each event as its JSON text — so a value that
 * would not survive a JSON round trip (an `undefined` field) does not survive
 * here either, and it runs the same shared store logic (seq check, buffering,
 * leases, recovery) as the durable layers.
 *
 * A `MemoryStorage` can outlive a store: two stores built on one storage behave
 * like two processes sharing a disk, and a store whose scope closed behaves
 * like a process that stopped (a turn it left open is recovered by the next `open`).
 */
import { Effect, Layer } from "effect"
import type { SessionLog } from "@turnlog/protocol"
import { type Backend, makeCore, type Writer } from "./internal/Core.js"
import { POLL } from "./internal/Streaming.js"
import { self as thisProcess } from "./internal/Liveness.js"
import { SessionStore } from "./SessionStore.js"
import { SessionLocked, SessionNotFound } from "./StoreError.js"
import { summarize } from "./Summary.js"

interface StoredSession {
  readonly header: string
  readonly events: Array<string>
}

/** Sessions and leases shared by the stores built on it. */
export interface MemoryStorage {
  readonly sessions: Map<string, StoredSession>
  /** Session id → the store holding its lease. */
  readonly leases: Map<string, symbol>
}

export const makeStorage = (): MemoryStorage => ({ sessions: new Map(), leases: new Map() })

/** Events per page of a streaming read. */
const PAGE = 500

const parse = <A>(text: string): A => JSON.parse(text) as A

const makeBackend = (storage: MemoryStorage): Backend => {
  const self = Symbol("memory store")
  const loadStored = (stored: StoredSession) => ({
    header: parse<SessionLog.SessionHeader>(stored.header),
    events: stored.events.map((line) => parse<SessionLog.SessionEvent>(line)),
  })
  return {
    acquire: (id) =>
      Effect.suspend(() => {
        const holder = storage.leases.get(id)
        // Every store here lives in this process: a lease held by another store names this process.
        if (holder !== undefined && holder !== self) {
          return Effect.fail(new SessionLocked({ sessionId: id, holder: thisProcess() }))
        }
        storage.leases.set(id, self)
        const writer: Writer = {
          write: (header, events, first) =>
            Effect.sync(() => {
              // Every line made before anything is kept: a write stores all of its events or none.
              const lines = events.map((event) => JSON.stringify(event))
              let stored = storage.sessions.get(id)
              if (first || stored === undefined) {
                stored = { header: JSON.stringify(header), events: [] }
                storage.sessions.set(id, stored)
              }
              for (const line of lines) stored.events.push(line)
            }),
          release: Effect.sync(() => {
            if (storage.leases.get(id) === self) storage.leases.delete(id)
          }),
          remove: Effect.sync(() => storage.sessions.delete(id)),
        }
        return Effect.succeed(writer)
      }),
    // Another store of this storage holding the lease is this process.
    holderOf: (id) =>
      Effect.sync(() => {
        const holder = storage.leases.get(id)
        return holder !== undefined && holder !== self ? thisProcess() : undefined
      }),
    load: (id) =>
      Effect.suspend(() => {
        const stored = storage.sessions.get(id)
        return stored === undefined ? Effect.fail(new SessionNotFound({ sessionId: id })) : Effect.succeed(loadStored(stored))
      }),
    streaming: {
      header: (id) =>
        Effect.suspend(() => {
          const stored = storage.sessions.get(id)
          return stored === undefined
            ? Effect.fail(new SessionNotFound({ sessionId: id }))
            : Effect.succeed(parse<SessionLog.SessionHeader>(stored.header))
        }),
      tail: (id, fromSeq) =>
        Effect.sync(() => {
          // Seq n is at index n - 1: the array is the log.
          let index = Math.max(0, fromSeq - 1)
          return {
            next: Effect.suspend(() => {
              const stored = storage.sessions.get(id)
              if (stored === undefined) return Effect.fail(new SessionNotFound({ sessionId: id }))
              const page = stored.events.slice(index, index + PAGE)
              index += page.length
              return Effect.succeed(page.map((line) => parse<SessionLog.SessionEvent>(line)))
            }),
            pending: () => undefined,
          }
        }),
      pollInterval: POLL,
    },
    list: () =>
      Effect.sync(() => ({
        sessions: Array.from(storage.sessions.values()).flatMap((stored) => {
          const { events, header } = loadStored(stored)
          const summary = summarize(header, events)
          return summary === undefined ? [] : [summary]
        }),
        unreadable: [],
      })),
  }
}

/** A store over `storage` (a fresh one by default). */
export const makeMemory = (storage?: MemoryStorage) => Effect.suspend(() => makeCore(makeBackend(storage ?? makeStorage())))

/** A memory store with its own storage (fresh each time the layer is built). */
export const layerMemory = Layer.scoped(SessionStore, makeMemory())

/** A memory store over a storage the test keeps, to simulate restarts and a second process. */
export const layerMemoryWith = (storage: MemoryStorage) => Layer.scoped(SessionStore, makeMemory(storage))
