/**
 * The change a file-writing tool call made, as lines for people: the unified
 * diff an `edit_file` result carries (after its summary line), or the lines
 * of a whole file `write_file` wrote, shown as added. Painted the way diffs
 * are read on a terminal — added green, removed red, hunk heads cyan — when
 * colour is allowed. `run` prints these on stderr; the interactive session
 * shows them under the tool's status line.
 * Every line is made visible (see `Visible`) before it is styled.
 */
import type { Tools } from "@turnlog/agent"
import * as Style from "./chat/Style.js"
import { visible } from "./Visible.js"

/** The lines of `text`, a final newline not making one more. */
const linesOf = (text: string): Array<string> => (text === "" ? [] : text.replace(/\n$/, "").split("\n"))

/** The diff lines of an `edit_file` result (its first line is the summary). */
export const ofEditResult = (content: string): Array<string> => linesOf(content).slice(1)

/** A whole file written (a change with no `oldText`): every line added; none for a replacement. */
export const ofWrite = (change: Tools.Change): Array<string> => change.oldText === undefined ? linesOf(change.newText).map((line) => `+${line}`) : []

/** The diff of a finished call of `name`, from its result and the changes its arguments ask for. */
export const ofCall = (name: string, content: string, changes: ReadonlyArray<Tools.Change> = []): Array<string> =>
  name === "edit_file" ? ofEditResult(content) : name === "write_file" ? changes.flatMap(ofWrite) : []

/**
 * What an `edit_file` call asks to change, before it runs: the passage as
 * removed lines and its replacement as added ones, each side cut to `side`
 * lines (the last saying how many more there are), so a long passage does not
 * hide its replacement.
 */
export const ofProposedEdit = (oldText: string, newText: string, side: number): Array<string> => {
  const cut = (lines: ReadonlyArray<string>, sign: "-" | "+", what: string): Array<string> =>
    lines.length <= side
      ? lines.map((line) => `${sign}${line}`)
      : [...lines.slice(0, side - 1).map((line) => `${sign}${line}`), `… ${lines.length - side + 1} more lines ${what}`]
  return [...cut(linesOf(oldText), "-", "removed"), ...cut(linesOf(newText), "+", "added")]
}

/** One diff line made visible, coloured when `paint`. */
export const paintLine = (line: string, paint: boolean): string => {
  const shown = visible(line)
  if (!paint) return shown
  if (line.startsWith("+") && !line.startsWith("+++")) return Style.green(shown)
  if (line.startsWith("-") && !line.startsWith("---")) return Style.red(shown)
  if (line.startsWith("@@")) return Style.cyan(shown)
  return shown
}

/**
 * At most `max` lines of `lines`, painted; when more, the last shown says how
 * many were left out (the whole diff stays in the log: `turnlog show`).
 */
export const clipped = (lines: ReadonlyArray<string>, max: number, paint: boolean): Array<string> => {
  if (lines.length <= max) return lines.map((l) => paintLine(l, paint))
  const kept = lines.slice(0, max - 1).map((l) => paintLine(l, paint))
  const more = `… ${lines.length - kept.length} more lines`
  return [...kept, paint ? Style.gray(more) : more]
}
