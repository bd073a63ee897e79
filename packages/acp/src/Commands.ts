/**
 * The slash commands the agent offers an editor (`available_commands_update`)
 * and how a prompt is recognised as one. A command is answered by the agent
 * itself: it is not a turn and is not written to the session's log.
 */
import type * as acp from "@agentclientprotocol/sdk"
import type { TextBlock } from "@turnlog/protocol"

export const available: acp.SessionUpdate = {
  sessionUpdate: "available_commands_update",
  availableCommands: [
    {
      name: "doctor",
      description: "Check this session's log: whether each stored reply replays natively or degrades, and why",
    },
  ],
}

/** A prompt that is exactly `/doctor`. */
export const isDoctor = (content: ReadonlyArray<TextBlock>): boolean =>
  content.length === 1 && content[0]!.text.trim() === "/doctor"
