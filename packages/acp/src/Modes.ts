/**
 * A session's mode as the editor sees it (`modes` in the session/new, load and
 * resume answers; `session/set_mode`; `current_mode_update`): the loop's
 * modes, named and described for a mode picker. The mode is kept in the
 * session's log (`session/mode`), so a reload restores it.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { SessionLog } from "@turnlog/protocol"

/** Each mode's name and what it lets tools do, for a picker (an editor's, the interactive session's `/mode`). */
export const described: Record<SessionLog.Mode, { readonly name: string; readonly description: string }> = {
  "ask": { name: "Ask", description: "Asks before every file write and command" },
  "read-only": { name: "Read-only (plan)", description: "Reads only: no writes, no commands; the model answers with a plan" },
  "auto-edit": { name: "Auto-edit", description: "Writes and edits files without asking; asks before commands" },
  "full-access": { name: "Full access", description: "Writes files and runs commands without asking" },
}

export const available: Array<acp.SessionMode> = SessionLog.MODES.map((id) => ({ id, ...described[id] }))

export const state = (current: SessionLog.Mode): acp.SessionModeState => ({
  currentModeId: current,
  availableModes: available,
})

/** The mode an editor asked for, if it is one. */
export const parse = (id: unknown): SessionLog.Mode | undefined => SessionLog.MODES.find((mode) => mode === id)

export const update = (current: SessionLog.Mode): acp.SessionUpdate => ({
  sessionUpdate: "current_mode_update",
  currentModeId: current,
})
