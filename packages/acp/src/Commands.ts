/**
 * The slash commands the agent offers an editor (`available_commands_update`)
 * and how a prompt is recognised as one. A command is answered by the agent
 * itself: it is not a turn. `/doctor` writes nothing; `/compact` writes the
 * compaction (its summary request and `context/compaction`) between turns.
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
    {
      name: "compact",
      description: "Summarise this session's older history now, so later requests start from the summary",
      input: { hint: "what the summary should focus on (optional)" },
    },
  ],
}

/** A prompt that is exactly `/doctor`. */
export const isDoctor = (content: ReadonlyArray<TextBlock>): boolean => content.length === 1 && content[0]!.text.trim() === "/doctor"

/**
 * A prompt that is `/compact`, alone or followed by what the summary should
 * focus on: the focus (`""` when none), else `undefined`.
 */
export const compactFocus = (content: ReadonlyArray<TextBlock>): string | undefined => {
  if (content.length !== 1) return undefined
  const match = /^\/compact(?:\s+([\s\S]*))?$/.exec(content[0]!.text.trim())
  return match === null ? undefined : (match[1] ?? "").trim()
}

/** What `/compact` answers: what was done, or why nothing was. */
export const compacted = (
  result: { readonly _tag: "compacted"; readonly tokensBefore: number; readonly tokensAfter: number } | {
    readonly _tag: "nothing-to-cut"
    readonly tokens: number
  },
): string =>
  result._tag === "compacted"
    ? `Compacted: the next request is about ${result.tokensAfter} tokens (about ${result.tokensBefore} before). The older history stays in the log.`
    : `Nothing to compact: the next request is about ${result.tokens} tokens, all recent history.`
