/**
 * What one connection keeps while it is served: the sessions open on it (each
 * as its client is shown it), what its client offered in `initialize`, the
 * sessions whose title the client was sent, and the prompts in flight, with
 * those that `session/cancel` was sent for until they answer.
 */
import type * as acp from "@agentclientprotocol/sdk"
import type * as Updates from "../Updates.js"
import type { Titled } from "./Titles.js"

export const make = () => {
  const sessions = new Map<string, Updates.View>()
  // What the client offered in `initialize`: its sessions' tools use its file system and terminal.
  let clientOffers: acp.ClientCapabilities | undefined
  // Sessions whose title the client was sent (session_info_update).
  const titled = new Set<string>()
  // Each prompt in flight, settled (never rejected) once it is answered.
  const inFlight = new Map<string, Promise<unknown>>()
  // Prompts in flight that session/cancel was sent for, until they answer.
  const cancelling = new Map<string, Promise<unknown>>()

  return {
    /** The session as its client is shown it, when it is open on this connection. */
    view: (id: string): Updates.View | undefined => sessions.get(id),
    isOpen: (id: string): boolean => sessions.has(id),
    /** The sessions open on this connection. */
    openIds: (): ReadonlyArray<string> => [...sessions.keys()],
    /** The session is open on this connection, shown with `view`. */
    opened: (id: string, view: Updates.View): void => {
      sessions.set(id, view)
    },
    /** The session is closed on this connection: neither it nor its title sent is kept. */
    closed: (id: string): void => {
      sessions.delete(id)
      titled.delete(id)
    },

    /** What the client offered in `initialize` (nothing before it). */
    clientOffers: (): acp.ClientCapabilities | undefined => clientOffers,
    offered: (capabilities: acp.ClientCapabilities | undefined): void => {
      clientOffers = capabilities
    },

    /** The titles sent, as `Titles.sender` keeps them. */
    titled: {
      has: (id: string): boolean => titled.has(id),
      add: (id: string): void => void titled.add(id),
    } satisfies Titled,
    /** The client is to be sent the session's title again. */
    forgetTitle: (id: string): void => {
      titled.delete(id)
    },

    /** A prompt of the session is in flight. */
    isBusy: (id: string): boolean => inFlight.has(id),
    /** The sessions with a prompt in flight. */
    busyIds: (): ReadonlyArray<string> => [...inFlight.keys()],
    /** The session's prompt in flight, settled once it is answered. */
    turnOf: (id: string): Promise<unknown> | undefined => inFlight.get(id),
    /** Every prompt in flight now, answered. */
    allAnswered: async (): Promise<void> => {
      await Promise.all([...inFlight.values()])
    },
    /** A prompt of the session is in flight until `settled` (which never rejects) settles. */
    started: (id: string, settled: Promise<unknown>): void => {
      inFlight.set(id, settled)
    },
    /** The prompt `settled` stands for is answered. */
    answered: (id: string, settled: Promise<unknown>): void => {
      inFlight.delete(id)
      if (cancelling.get(id) === settled) cancelling.delete(id)
    },
    /** `session/cancel` was sent for the session: its prompt in flight, if any, is being cancelled. */
    cancelRequested: (id: string): void => {
      const turn = inFlight.get(id)
      if (turn !== undefined) cancelling.set(id, turn)
    },
    /** The session's prompt that `session/cancel` was sent for and that has not answered yet. */
    beingCancelled: (id: string): Promise<unknown> | undefined => cancelling.get(id),
  }
}

export type Connection = ReturnType<typeof make>
