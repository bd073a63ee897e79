/**
 * Where the command speaks: answers on stdout, everything else — notes,
 * tool activity, diagnostics — one line at a time on stderr, prefixed so it
 * reads apart from a model's words. What is printed for people has its
 * control characters made visible (see `Visible`); JSON is printed exact.
 */
import { Effect } from "effect"
import { visible } from "./Visible.js"

/** A note on stderr; control characters in it are shown, not obeyed. */
export const note = (line: string): Effect.Effect<void> =>
  Effect.sync(() => {
    process.stderr.write(`turnlog: ${visible(line)}\n`)
  })

/** Text on stderr as it streams (a model's reasoning), made visible like a note. */
export const err = (text: string): Effect.Effect<void> =>
  Effect.sync(() => {
    process.stderr.write(visible(text))
  })

/** Text for people on stdout; control characters in it are shown, not obeyed. */
export const out = (text: string): Effect.Effect<void> =>
  Effect.sync(() => {
    process.stdout.write(visible(text))
  })

/** JSON on stdout: exact (JSON escapes control characters itself, C1 ones aside, which stay exact). */
export const json = (value: unknown): Effect.Effect<void> =>
  Effect.sync(() => {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
  })

/** One JSON value on one line of stdout (a stream of them, for scripts): exact, like `json`. */
export const line = (value: unknown): Effect.Effect<void> =>
  Effect.sync(() => {
    process.stdout.write(`${JSON.stringify(value)}\n`)
  })
