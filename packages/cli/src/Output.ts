/**
 * Where the command speaks: answers on stdout, everything else — notes,
 * tool activity, diagnostics — one line at a time on stderr, prefixed so it
 * reads apart from a model's words.
 */
import { Effect } from "effect"

export const note = (line: string): Effect.Effect<void> =>
  Effect.sync(() => {
    process.stderr.write(`turnlog: ${line}\n`)
  })

export const out = (text: string): Effect.Effect<void> =>
  Effect.sync(() => {
    process.stdout.write(text)
  })

export const json = (value: unknown): Effect.Effect<void> => out(`${JSON.stringify(value, null, 2)}\n`)
