/**
 * `session/delete` and the unstable `session/fork` (`sessionCapabilities.fork`:
 * the session copied up to its last ended turn), as `../ForkDelete` does them.
 * A fork is answered like `session/new`, its commands sent once the answer
 * has gone out.
 */
import type * as acp from "@agentclientprotocol/sdk"
import * as Modes from "../../Modes.js"
import type * as Lifecycle from "../ForkDelete.js"
import type { Deps } from "./Deps.js"

export const remove = (lifecycle: ReturnType<typeof Lifecycle.make>) => ({ params }: acp.AgentRequestContext<acp.DeleteSessionRequest>) =>
  lifecycle.remove(params.sessionId)

export const fork =
  (deps: Pick<Deps, "settings" | "advertiser">, lifecycle: ReturnType<typeof Lifecycle.make>) =>
  async ({ client, params }: acp.AgentRequestContext<Lifecycle.ForkParams>) => {
    const forked = await lifecycle.fork(client, params)
    deps.advertiser.advertise(client, forked.id)
    return { sessionId: forked.id, modes: Modes.state(forked.mode), ...deps.settings.configOptions(forked.id) }
  }
