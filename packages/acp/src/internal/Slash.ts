/**
 * The slash commands a prompt may be (offered only when the server has a
 * doctor): `/doctor` reports the stored session's replay health, `/compact`
 * compacts it now (`/compact <focus>`: the summary is asked to keep the focus
 * in view). Each answers with one message and `end_turn`; any other
 * prompt is no command (`undefined`).
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Effect } from "effect"
import type { AgentLoop } from "@turnlog/agent"
import { SessionId, type TextBlock } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"
import * as Commands from "../Commands.js"
import * as Errors from "../Errors.js"
import type { Run } from "./Runner.js"

export interface Deps {
  readonly doctor: ((session: SessionStore.LoadedSession) => string) | undefined
  readonly store: SessionStore.Service
  readonly loop: AgentLoop.Service
  readonly run: Run
  readonly notify: (client: acp.AgentContext, id: string, update: acp.SessionUpdate) => Effect.Effect<void>
}

export const make = (deps: Deps) =>
async (
  client: acp.AgentContext,
  id: string,
  content: ReadonlyArray<TextBlock>,
  /** Opens the session again if it was let go (compaction writes to it; the doctor only reads). */
  ensureOpen: () => Promise<void>,
): Promise<acp.PromptResponse | undefined> => {
  if (deps.doctor === undefined) return undefined
  const say = (text: string) => deps.run(deps.notify(client, id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } }))
  if (Commands.isDoctor(content)) {
    await say(deps.doctor(await deps.run(deps.store.read(SessionId.make(id)).pipe(Effect.mapError(Errors.fromAgentError)))))
    return { stopReason: "end_turn" }
  }
  const focus = Commands.compactFocus(content)
  if (focus !== undefined) {
    await ensureOpen()
    await say(
      await deps.run(
        deps.loop.compact(SessionId.make(id), focus === "" ? {} : { focus }).pipe(
          Effect.map(Commands.compacted),
          Effect.catchTag("CompactionFailed", (e) => Effect.succeed(`Not compacted: ${e.message}`)),
          Effect.mapError(Errors.fromAgentError),
        ),
      ),
    )
    return { stopReason: "end_turn" }
  }
  return undefined
}
