/** Telling the client of a session: an update, and the session's title once (`session_info_update`). */
import type * as acp from "@agentclientprotocol/sdk"
import { Effect } from "effect"
import * as Updates from "../Updates.js"

export const notify = (client: acp.AgentContext, sessionId: string, update: acp.SessionUpdate): Effect.Effect<void> =>
  // A client that went away cannot be told; the turn still ends durably.
  Effect.promise(() => client.notify("session/update", { sessionId, update }).catch(() => undefined))

/** The sessions whose title the client was sent. */
export interface Titled {
  readonly has: (id: string) => boolean
  readonly add: (id: string) => void
}

/** Sends a session's title unless it is empty or `titled` says the client has one. */
export const sender = (titled: Titled) => (client: acp.AgentContext, id: string, title: string): Effect.Effect<void> =>
  title === "" || titled.has(id)
    ? Effect.void
    : Effect.zipRight(Effect.sync(() => titled.add(id)), notify(client, id, Updates.sessionInfo(title)))
