/**
 * A transcript (`Transcript.ts`) as printed lines: the header, each turn's
 * opening, items and closing (how it ended, or that it is still open and
 * why), compactions written after the last turn, and a torn tail. `show`
 * prints these turn by turn as it reads; `render` is the whole text at once.
 */
import { visibleInLine } from "./Visible.js"
import * as path from "node:path"
import { FailureMessage } from "@turnlog/protocol"
import type { Item, PromptImage, Transcript, Turn } from "./Transcript.js"

const indent = (text: string, prefix = "  "): string => text.split("\n").map((line) => `${prefix}${line}`).join("\n")

/** A prompt's image, named by its type and size (its bytes are in the log and the export). */
const imageLine = (image: PromptImage): string =>
  `  [image: ${visibleInLine(image.mimeType)}, ${Math.floor((image.data.replace(/=+$/, "").length * 3) / 4)} bytes]`

/** At most `max` characters (code points: never half of one), saying how many more there were. */
const clip = (text: string, max = 2000): string => {
  if (text.length <= max) return text
  const chars = Array.from(text)
  return chars.length > max ? `${chars.slice(0, max).join("")}… (${chars.length - max} more characters)` : text
}

export const describeEnd = (end: Turn["end"], writer?: number): string => {
  if (end === undefined) {
    return writer === undefined
      ? "still open: the process stopped mid-turn (it is closed as interrupted when the session is next used)"
      : `still running: process ${writer} is writing this session`
  }
  switch (end.reason) {
    case "completed":
      return "completed"
    case "max-tokens": {
      const dropped = end.dropped ?? []
      return dropped.length === 0
        ? "stopped at the output limit (max tokens)"
        : `stopped at the output limit (max tokens); the tool call${dropped.length === 1 ? "" : "s"} it was making ` +
          `(${dropped.join(", ")}) ${dropped.length === 1 ? "was" : "were"} dropped, not run`
    }
    case "error":
      return `failed: ${end.failure === undefined ? "no cause recorded" : `${FailureMessage.readable(end.failure.message)} (${end.failure.code})`}`
    case "cancelled":
      return "cancelled"
    case "interrupted":
      return "interrupted: the process stopped mid-turn"
    case "max-steps":
      return "stopped after the maximum number of steps"
  }
}

/** The first line of a printed transcript. */
export const headerLine = (header: { readonly id: string; readonly cwd: string; readonly createdAt: string }): string =>
  `session ${header.id}  (${visibleInLine(header.cwd)}, created ${header.createdAt})`

const compactionLines = (item: Extract<Item, { role: "compaction" }>): Array<string> => [
  `compaction${
    item.between === true ? " (between turns)" : ""
  }: the history before event ${item.firstKeptSeq} summarised by ${item.route}, about ${item.tokensBefore} → ${item.tokensAfter} tokens:`,
  indent(item.summary),
]

/** Where a fork came from. */
export const forkLine = (item: Extract<Item, { role: "fork" }>): string =>
  `forked from session ${item.session} after its turn ${item.turn} (the turns before are its history)`

/** The lines that open turn `n` (1-based), a blank line first. */
export const turnOpening = (n: number, turn: Turn): Array<string> => [
  "",
  `── turn ${n}${turn.compacted === true ? " (compacted: the model sees it only through a summary)" : ""}`,
]

/**
 * A system prompt as one line: `sha256:` and the hash's first 12 digits, then
 * its sources — files inside `cwd` relative to it, others as they are.
 */
export const systemLabel = (system: { readonly hash: string; readonly sources: ReadonlyArray<string> }, cwd: string): string => {
  const sources = system.sources.map((source) => {
    if (!path.isAbsolute(source)) return source
    const relative = path.relative(cwd, source)
    return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : source
  })
  return `sha256:${system.hash.slice(0, 12)}… (${sources.length === 0 ? "empty" : sources.join(" + ")})`
}

/** The lines of one item of a turn; `cwd` (the session's) shortens the paths a system prompt came from. */
export const itemLines = (item: Item, cwd = "/"): Array<string> => {
  switch (item.role) {
    case "system-prompt":
      return [`system prompt: ${systemLabel(item, cwd)}`]
    case "compaction":
      return compactionLines(item)
    case "fork":
      return [forkLine(item)]
    case "user":
      return ["user:", indent(item.text), ...(item.images ?? []).map(imageLine)]
    case "assistant": {
      const lines: Array<string> = []
      if (item.reasoning !== undefined) lines.push("assistant (thinking):", indent(item.reasoning))
      if (item.text !== "" || item.interrupted === true) {
        const how = item.interrupted === true ? " (interrupted)" : item.failed === true ? " (shown before the failure)" : ""
        lines.push(`assistant${how}:`, indent(item.text))
      }
      return lines
    }
    case "tool-call":
      return [`tool call ${item.name} [${item.callId}]:`, indent(item.arguments)]
    case "tool-result":
      return [`tool result [${item.callId}]${item.isError ? " (error)" : ""}:`, indent(clip(item.content))]
  }
}

/** The line that closes turn `n`: how it ended (or that it is still open, and why). */
export const turnClosing = (n: number, turn: Turn, writer?: number): string => `turn ${n} ${describeEnd(turn.end, writer)}`

/** What follows the last turn: compactions written after it, a blank line before each. */
export const trailingLines = (items: ReadonlyArray<Item>): Array<string> => items.flatMap((item) => ["", ...itemLines(item)])

export const tornTailLines = (torn: { readonly bytes: number; readonly line: number }): Array<string> => [
  "",
  `a torn tail of ${torn.bytes} bytes at line ${torn.line}: cut off and kept aside when the session is next opened`,
]

export const render = (transcript: Transcript): string => {
  const out: Array<string> = [headerLine(transcript)]
  transcript.turns.forEach((turn, i) => {
    out.push(...turnOpening(i + 1, turn))
    for (const item of turn.items) out.push(...itemLines(item, transcript.cwd))
    out.push(turnClosing(i + 1, turn, transcript.writer))
  })
  out.push(...trailingLines(transcript.trailing ?? []))
  if (transcript.tornTail !== undefined) out.push(...tornTailLines(transcript.tornTail))
  return out.join("\n")
}
