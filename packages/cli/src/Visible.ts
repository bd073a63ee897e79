/**
 * Text from a model, a tool or a stored session, made safe to print on a
 * terminal: every control character but tab and newline (and the carriage
 * return of a CRLF line end) is shown as a visible escape — ESC as `\x1b`,
 * BEL as `\x07`, a C1 control as `\x9b` — so a sequence that would write the
 * clipboard (OSC 52), retitle the window or clear the screen is read, not
 * executed. Only what is printed for people goes through here: `--json` and
 * the log keep the exact text.
 */

// C0 controls but tab (09) and newline (0a), DEL, and the C1 controls (80-9f), which some terminals obey too.
const CONTROL = /\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g

const escape = (c: string): string => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`

export const visible = (text: string): string => text.replace(CONTROL, escape)

// The same, with newline too: for a value printed inside one line (a cwd in a
// table row or a header), where a newline would forge a line of its own.
const CONTROL_IN_LINE = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g

/** `visible` for text that must stay on one line: newline and carriage return escaped too. */
export const visibleInLine = (text: string): string => text.replace(CONTROL_IN_LINE, escape)
