/**
 * The command line run to its exit code (0 done, 1 failed, 2 fix the command
 * line or config), its words on the `Terminal` and the environment that of
 * the `Invocation`. A failure ends as one line on stderr — set
 * TURNLOG_DEBUG=1 to see the full cause of an unexpected one. The `turnlog`
 * process (`main`) runs it; so do tests, in-process.
 */
import { HelpDoc, ValidationError } from "@effect/cli"
import type { CliApp } from "@effect/cli"
import { Cause, Effect } from "effect"
import { cli } from "./Cli.js"
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError } from "./CliError.js"
import * as Aliases from "./Aliases.js"
import * as Color from "./Color.js"
import { BadGlobalOption, hoist } from "./GlobalArgs.js"
import * as Help from "./Help.js"
import * as Output from "./Output.js"
import * as ParserNotes from "./ParserNotes.js"
import { Invocation } from "./Settings.js"
import * as UnknownOptions from "./UnknownOptions.js"
import { VERSION } from "./Version.js"
import { visible } from "./Visible.js"

const describeDefect = (cause: Cause.Cause<unknown>): string => {
  const squashed = Cause.squash(cause)
  return squashed instanceof Error ? squashed.message : String(squashed)
}

/** The help asked for, on stdout: bold headings only on a terminal that allows colour. */
const showHelp = (request: Help.Request): Effect.Effect<number, UsageError> => {
  if (request._tag === "UnknownTopic") {
    const typo = UnknownOptions.check([request.word])
    return Effect.fail(new UsageError({ message: typo ?? `there is no command ${visible(request.word)} (the commands: turnlog --help)` }))
  }
  return Effect.gen(function*() {
    const { stdout } = yield* Output.Terminal
    const { env } = yield* Invocation
    const color = Color.allowed(env) && Output.isTTY(stdout)
    const width = Math.max(60, Math.min(100, stdout.columns ?? 80))
    yield* Output.raw(Help.render(request.topic, { color, width, version: VERSION }))
    return EXIT_OK
  })
}

/** The parser's refusal of the command line, said as one sentence and the command's usage line (exit 2). */
const refused = (error: ValidationError.ValidationError, args: ReadonlyArray<string>): Effect.Effect<number> => {
  const said = "error" in error ? Color.strip(HelpDoc.toAnsiText(error.error)) : ""
  const word = Help.firstWord(args)
  const command = Help.commandOf(args)
  const message = word !== undefined && command === undefined && /^Invalid subcommand/.test(said.trim())
    ? `unknown command ${visible(word)}`
    : visible(Help.refusal(said, args))
  return Effect.as(Output.rawErr(`turnlog: ${message}\n${Help.usageLine(command)}\n`), EXIT_USAGE)
}

/** `argv` (the arguments after the program's name) run to the exit code the command earned. */
export const program = (argv: ReadonlyArray<string>): Effect.Effect<number, never, CliApp.CliApp.Environment> => {
  let args: Array<string> = []
  const progress = { started: false }
  return Effect.gen(function*() {
    const invocation = yield* Invocation
    try {
      args = hoist(Aliases.expand(Color.takeFlag(argv, invocation.env)))
    } catch (error) {
      if (error instanceof BadGlobalOption) return yield* new UsageError({ message: error.message })
      throw error
    }
    const help = Help.request(args)
    if (help !== undefined) return yield* showHelp(help)
    const unknown = UnknownOptions.check(args)
    if (unknown !== undefined) return yield* new UsageError({ message: unknown })
    // The parser's own notes of a refusal are withheld: `refused` says them.
    const console = yield* Effect.console
    yield* cli(["node", "turnlog", ...args]).pipe(Effect.withConsole(ParserNotes.withheld(console, progress)))
    return EXIT_OK
  }).pipe(
    Effect.catchAll((error) => {
      if (ValidationError.isValidationError(error)) return refused(error, args)
      return Effect.as(Output.rawErr(`turnlog: ${visible(error.message)}\n`), error._tag === "UsageError" ? EXIT_USAGE : EXIT_FAILED)
    }),
    Effect.catchAllDefect((defect) =>
      Effect.flatMap(Invocation, (invocation) =>
        Output.rawErr(
          `turnlog: internal error: ${invocation.env.TURNLOG_DEBUG ? Cause.pretty(Cause.die(defect)) : describeDefect(Cause.die(defect))}\n`,
        ).pipe(Effect.as(EXIT_FAILED)))
    ),
    Effect.provideService(ParserNotes.Progress, progress),
  )
}
