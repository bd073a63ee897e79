/**
 * The `turnlog` process: parse, run, and end with the exit code the command
 * earned (0 done, 1 failed, 2 fix the command line or config). A failure ends
 * as one line on stderr — set TURNLOG_DEBUG=1 to see the full cause of an
 * unexpected one.
 */
import { ValidationError } from "@effect/cli"
// Submodules, not the package index: the index loads every platform module (HTTP, workers…) at start.
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Exit } from "effect"
import { cli } from "./Cli.js"
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./CliError.js"
import { hoist } from "./GlobalArgs.js"

// A reader that went away (`turnlog show … | head`, an editor that quit) ends the command quietly.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0)
  throw error
})

const describeDefect = (cause: Cause.Cause<unknown>): string => {
  const squashed = Cause.squash(cause)
  return squashed instanceof Error ? squashed.message : String(squashed)
}

const program = Effect.suspend(() => cli(["node", "turnlog", ...hoist(process.argv.slice(2))])).pipe(
  Effect.as(EXIT_OK),
  Effect.catchAll((error) => {
    if (ValidationError.isValidationError(error)) return Effect.succeed(EXIT_USAGE) // already printed by the parser
    return Effect.sync(() => {
      process.stderr.write(`turnlog: ${error.message}\n`)
      return error._tag === "UsageError" ? EXIT_USAGE : EXIT_FAILED
    })
  }),
  Effect.catchAllDefect((defect) =>
    Effect.sync(() => {
      process.stderr.write(
        `turnlog: internal error: ${
          process.env.TURNLOG_DEBUG ? Cause.pretty(Cause.die(defect)) : describeDefect(Cause.die(defect))
        }\n`,
      )
      return EXIT_FAILED
    })
  ),
  Effect.provide(NodeContext.layer),
)

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  teardown: (exit, onExit) => {
    onExit(Exit.isSuccess(exit) ? (exit.value as number) : Exit.isInterrupted(exit) ? 130 : EXIT_FAILED)
  },
})
