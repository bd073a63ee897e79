/**
 * The parser prints its own refusal of a command line (`Missing argument
 * <id>`) on the console before it fails with a `ValidationError`; turnlog
 * says that refusal itself, in its own words and with the command's usage
 * line (`Help.refusal`, in `main`). So the console the parser writes to
 * withholds errors until a command has started (`started`, the first step of
 * every command); from then on the console is the usual one.
 */
import { Console, Context, Effect } from "effect"

/** Whether the command line's command has started; one per run of the command line. */
export class Progress extends Context.Reference<Progress>()("@turnlog/cli/ParserNotes/Progress", {
  defaultValue: (): { started: boolean } => ({ started: false }),
}) {}

/** A command's handler has begun: console errors from here on are the command's own. */
export const started: Effect.Effect<void> = Effect.map(Progress, (progress) => {
  progress.started = true
})

/** `console` with its errors withheld until the command of `progress` has started. */
export const withheld = (console: Console.Console, progress: { readonly started: boolean }): Console.Console => ({
  ...console,
  error: (...args: ReadonlyArray<unknown>) => (progress.started ? console.error(...args) : Effect.void),
})
