/**
 * Why a tool call produced an error result. None of these ends a turn: the
 * loop stores each as a `tool/result` the model sees (`isError`, with the
 * error's `code` on the event), and the turn continues.
 */
import { Data } from "effect"

export class UnknownTool extends Data.TaggedError("UnknownTool")<{ readonly name: string }> {
  readonly code = "UNKNOWN_TOOL"
  override get message() {
    return `unknown tool "${this.name}"`
  }
}

/** The arguments were not JSON, or did not match the tool's schema. The tool did not run. */
export class InvalidArguments extends Data.TaggedError("InvalidArguments")<{
  readonly tool: string
  readonly detail: string
}> {
  readonly code = "INVALID_ARGUMENTS"
  override get message() {
    return `invalid arguments for ${this.tool}: ${this.detail}`
  }
}

export class PathOutsideCwd extends Data.TaggedError("PathOutsideCwd")<{
  readonly path: string
  readonly cwd: string
  readonly detail?: string
}> {
  readonly code = "PATH_OUTSIDE_CWD"
  override get message() {
    return `path "${this.path}" is outside the session directory ${this.cwd}${this.detail ? ` (${this.detail})` : ""}`
  }
}

export class PermissionDenied extends Data.TaggedError("PermissionDenied")<{
  readonly tool: string
  readonly title: string
  /** Why, when no one was asked (the session's mode). */
  readonly because?: string
}> {
  readonly code = "PERMISSION_DENIED"
  override get message() {
    return `permission denied: ${this.title}${this.because === undefined ? "" : ` (${this.because})`}`
  }
}

export class ToolTimeout extends Data.TaggedError("ToolTimeout")<{
  readonly tool: string
  readonly timeoutMs: number
  /** What the tool had produced when it was stopped. */
  readonly output?: string
}> {
  readonly code = "TOOL_TIMEOUT"
  override get message() {
    return `${this.tool} timed out after ${this.timeoutMs} ms and was stopped` +
      (this.output ? `\n${this.output}` : "")
  }
}

/** The tool ran and failed (a missing file, a non-zero exit status, …). */
export class ToolFailed extends Data.TaggedError("ToolFailed")<{
  readonly tool: string
  readonly detail: string
}> {
  readonly code = "TOOL_FAILED"
  override get message() {
    return `${this.tool} failed: ${this.detail}`
  }
}

/** The turn was cancelled while the tool was waiting for permission or running. */
export class ToolCancelled extends Data.TaggedError("ToolCancelled")<{
  readonly tool: string
  readonly started: boolean
}> {
  get code() {
    return this.started ? "TOOL_CANCELLED" : "TOOL_NOT_STARTED"
  }
  override get message() {
    return this.started
      ? `${this.tool} was cancelled while running; it may or may not have completed its work`
      : `${this.tool} did not run: the turn was cancelled`
  }
}

export type ToolError =
  | UnknownTool
  | InvalidArguments
  | PathOutsideCwd
  | PermissionDenied
  | ToolTimeout
  | ToolFailed
  | ToolCancelled
