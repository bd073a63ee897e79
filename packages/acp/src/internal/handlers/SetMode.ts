/**
 * `session/set_mode`: the session's mode written to its log between turns (by
 * the process that holds it, opening it again if it was let go), then told to
 * the client (`current_mode_update`). Refused while a prompt of it is in flight.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Effect } from "effect"
import { SessionId } from "@turnlog/protocol"
import * as Errors from "../../Errors.js"
import * as Modes from "../../Modes.js"
import type { Deps } from "./Deps.js"

export const handler =
  (deps: Pick<Deps, "loop" | "run" | "lifetime" | "connection">) => async ({ client, params }: acp.AgentRequestContext<acp.SetSessionModeRequest>) => {
    const id = params.sessionId
    if (!deps.connection.isOpen(id)) throw Errors.unknownSession(id)
    const mode = Modes.parse(params.modeId)
    if (mode === undefined) {
      throw Errors.invalidParams(`mode ${JSON.stringify(params.modeId)} is not one offered (${Modes.available.map((m) => m.id).join(", ")})`)
    }
    if (deps.connection.isBusy(id)) throw Errors.busy(id)
    // Written to the log between turns, by the process that holds the session.
    await deps.lifetime.using(id, async () => {
      await deps.lifetime.ensureOpen(client, id)
      await deps.run(deps.loop.setMode(SessionId.make(id), mode).pipe(Effect.mapError(Errors.fromAgentError)))
    })
    await client.notify("session/update", { sessionId: id, update: Modes.update(mode) })
    return {}
  }
