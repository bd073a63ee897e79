/**
 * `session/prompt`: a slash command answered at once (text alone), or a turn
 * of the loop, the session opened again first if it was let go. One prompt
 * per session at a time; one sent right after `session/cancel` waits for the
 * cancelled turn to answer. A request cancelled by the client (or a closed
 * connection) cancels the turn, which then ends durably as cancelled.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Either } from "effect"
import { SessionId } from "@turnlog/protocol"
import * as Errors from "../../Errors.js"
import { toUserContent } from "../../PromptContent.js"
import * as PromptTurn from "../PromptTurn.js"
import * as Slash from "../Slash.js"
import * as Titles from "../Titles.js"
import type { Deps } from "./Deps.js"

export const handler = (
  deps: Pick<
    Deps,
    | "options"
    | "loop"
    | "store"
    | "run"
    | "runPromise"
    | "log"
    | "callIds"
    | "mcpServers"
    | "lifetime"
    | "connection"
    | "advertiser"
    | "sendTitle"
    | "saveRules"
    | "requireModel"
  >,
) => {
  const { connection, lifetime, loop } = deps
  const notify = Titles.notify
  const runTurn = PromptTurn.make({ loop, callIds: deps.callIds, log: deps.log, notify, sendTitle: deps.sendTitle, saveRules: deps.saveRules })
  const slash = Slash.make({ doctor: deps.options.doctor, store: deps.store, loop, run: deps.run, notify })

  return async ({ client, params, signal }: acp.AgentRequestContext<acp.PromptRequest>) => {
    const id = params.sessionId
    const view = connection.view(id)
    if (view === undefined) throw Errors.unknownSession(id)
    await deps.requireModel()
    // A prompt sent right after session/cancel waits for the cancelled turn to close.
    const cancelled = connection.beingCancelled(id)
    if (cancelled !== undefined) await cancelled
    if (connection.isBusy(id)) throw Errors.busy(id)
    const content = toUserContent(params.prompt)
    if (Either.isLeft(content)) throw Errors.invalidParams(content.left)
    return lifetime.using(id, async () => {
      // A command is text alone: a prompt with an image goes to the model.
      const texts = content.right.flatMap((b) => (b.type === "text" ? [b] : []))
      const command = texts.length === content.right.length
        ? await slash(client, id, texts, () => lifetime.ensureOpen(client, id))
        : undefined
      if (command !== undefined) return command
      // Let go while unused: opened again, with whatever another process appended meanwhile.
      await lifetime.ensureOpen(client, id)
      await deps.advertiser.advertiseNow(client, id)
      for (const update of deps.mcpServers.notices(id)) await client.notify("session/update", { sessionId: id, update })
      // A request cancelled by the client (or a closed connection) cancels the turn,
      // which then ends durably as cancelled.
      const onAbort = () => void deps.runPromise(loop.cancel(SessionId.make(id)))
      signal.addEventListener("abort", onAbort, { once: true })
      const turn = deps.run(runTurn(client, id, view, content.right))
      const settled = turn.catch(() => undefined)
      connection.started(id, settled)
      try {
        return await turn
      } finally {
        connection.answered(id, settled)
        signal.removeEventListener("abort", onAbort)
      }
    })
  }
}
