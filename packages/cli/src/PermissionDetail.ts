/**
 * What a permission question shows under its title: the first lines of what
 * the call will write or run, and for an `edit_file` call its passage and
 * replacement as a diff (removed lines, then added ones), for an
 * `exit_plan_mode` call the plan. The interactive
 * session shows them in its question; `run` prints them before it asks.
 */
import type { Permissions } from "@turnlog/agent"
import * as EditDiff from "./EditDiff.js"

/** Lines of a proposed edit shown for each side (removed, added). */
const EDIT_SIDE_LINES = 6
/** Lines shown of what a call writes or runs. */
const LINES = 8
/** Lines shown of a plan the model asks to carry out. */
const PLAN_LINES = 30
/** Characters shown of one such line. */
const WIDTH = 160

export interface Detail {
  readonly detail: ReadonlyArray<string>
  /** `detail` is diff lines (`-` removed, `+` added). */
  readonly diff: boolean
}

export const of = (request: Permissions.Request): Detail => {
  const input = typeof request.input === "object" && request.input !== null
    ? (request.input as Record<string, unknown>)
    : {}
  if (request.tool === "edit_file" && typeof input.old_text === "string" && typeof input.new_text === "string") {
    const lines = EditDiff.ofProposedEdit(input.old_text, input.new_text, EDIT_SIDE_LINES)
    return { detail: input.replace_all === true ? ["every occurrence:", ...lines] : lines, diff: true }
  }
  // A plan (`exit_plan_mode`) is what the question is about: more of it is shown.
  const plan = typeof input.plan === "string"
  const text = typeof input.content === "string"
    ? input.content
    : typeof input.command === "string"
    ? input.command
    : plan
    ? input.plan as string
    : JSON.stringify(request.input, null, 2) ?? ""
  const lines = text.replace(/\n+$/, "").split("\n")
  const shown = lines.slice(0, plan ? PLAN_LINES : LINES).map((l) => (l.length > WIDTH ? `${l.slice(0, WIDTH)}…` : l))
  return { detail: lines.length > shown.length ? [...shown, `… ${lines.length - shown.length} more lines`] : shown, diff: false }
}
