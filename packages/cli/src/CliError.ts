/**
 * How the command ends, as scripts see it: exit 0 when the work completed (a
 * turn stopped at max tokens included), 1 when it failed, 2 when the command
 * line or the config must be fixed first. Every failure is one sentence on
 * stderr; a stack trace is never what a user without a key gets.
 */
import { Data } from "effect"

/** A usage or config problem: exit 2, with a message that says what to fix. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** The work was attempted and failed (a turn that ended in error, a session that cannot be read): exit 1. */
export class CommandFailed extends Data.TaggedError("CommandFailed")<{ readonly message: string }> {}

export const EXIT_OK = 0
export const EXIT_FAILED = 1
export const EXIT_USAGE = 2
