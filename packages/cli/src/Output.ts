/**
 * Where the command speaks: answers on stdout, everything else — notes,
 * tool activity, diagnostics — one line at a time on stderr, prefixed so it
 * reads apart from a model's words. What is printed for people has its
 * control characters made visible (see `Visible`); JSON is printed exact.
 *
 * The two streams are the `Terminal` service: by default this process's
 * stdout and stderr; a command run in-process (tests) is given its own.
 */
import type { Writable } from "node:stream"
import { Context, Effect } from "effect"
import { visible } from "./Visible.js"

/** A stream the command writes to; `isTTY` and `columns` as a terminal's stream has them. */
export type Stream = Writable & { readonly isTTY?: boolean; readonly columns?: number }

export interface TerminalShape {
  readonly stdout: Stream
  readonly stderr: Stream
}

/** The command's stdout and stderr (by default this process's). */
export class Terminal extends Context.Reference<Terminal>()("@turnlog/cli/Output/Terminal", {
  defaultValue: (): TerminalShape => ({ stdout: process.stdout, stderr: process.stderr }),
}) {}

/** Whether `stream` is a terminal. */
export const isTTY = (stream: Stream): boolean => stream.isTTY === true

const writeErr = (text: string): Effect.Effect<void> =>
  Effect.map(Terminal, (terminal) => {
    terminal.stderr.write(text)
  })

const writeOut = (text: string): Effect.Effect<void> =>
  Effect.map(Terminal, (terminal) => {
    terminal.stdout.write(text)
  })

/** A note on stderr; control characters in it are shown, not obeyed. */
export const note = (line: string): Effect.Effect<void> => Effect.suspend(() => writeErr(`turnlog: ${visible(line)}\n`))

/** Text on stderr as it streams (a model's reasoning), made visible like a note. */
export const err = (text: string): Effect.Effect<void> => Effect.suspend(() => writeErr(visible(text)))

/** Text for people on stdout; control characters in it are shown, not obeyed. */
export const out = (text: string): Effect.Effect<void> => Effect.suspend(() => writeOut(visible(text)))

/** Text on stdout exactly as given (a page, a log, an address). */
export const raw = (text: string): Effect.Effect<void> => writeOut(text)

/** Text on stderr exactly as given. */
export const rawErr = (text: string): Effect.Effect<void> => writeErr(text)

/** JSON on stdout: exact (JSON escapes control characters itself, C1 ones aside, which stay exact). */
export const json = (value: unknown): Effect.Effect<void> => Effect.suspend(() => writeOut(`${JSON.stringify(value, null, 2)}\n`))

/** One JSON value on one line of stdout (a stream of them, for scripts): exact, like `json`. */
export const line = (value: unknown): Effect.Effect<void> => Effect.suspend(() => writeOut(`${JSON.stringify(value)}\n`))
