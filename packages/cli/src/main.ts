/**
 * The `turnlog` process: the command line run (`Program`), and the process
 * ended with the exit code the command earned — or the one a signal, a
 * reader gone or an unwritable stdout gives it.
 */
// Submodules, not the package index: the index loads every platform module (HTTP, workers…) at start.
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Exit } from "effect"
import { EXIT_FAILED } from "./CliError.js"
import * as Program from "./Program.js"
import { visible } from "./Visible.js"

// A signal interrupts the command (the runtime's own handlers do that); the
// exit code then says which one, as a shell would: 128 + its number. Like the
// runtime's, these listeners go at the first signal, so that a second one has
// its default effect and ends a shutdown that hangs (a stuck disk) at once.
// SIGHUP (the terminal closed) has no handler in the runtime, so by default it
// killed the process mid-turn: it is handed to the runtime's SIGTERM handling,
// and the turn is closed as cancelled with what it showed; then the process
// ends by that SIGHUP (see the teardown).
type StopSignal = "SIGINT" | "SIGTERM" | "SIGHUP"
let stoppedBy: StopSignal | undefined
const EXIT_SIGNAL = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const
const onSigint = () => noteSignal("SIGINT")
const onSigterm = () => noteSignal("SIGTERM")
const onSighup = () => {
  noteSignal("SIGHUP")
  process.emit("SIGTERM", "SIGTERM")
}
const noteSignal = (signal: StopSignal) => {
  stoppedBy = signal
  process.off("SIGINT", onSigint)
  process.off("SIGTERM", onSigterm)
  process.off("SIGHUP", onSighup)
}
process.on("SIGINT", onSigint)
process.on("SIGTERM", onSigterm)
process.on("SIGHUP", onSighup)

// A reader that went away (`turnlog run … | head`, an editor that quit) stops
// the command the way Ctrl-C does — a turn in flight is closed in the log as
// cancelled — and the exit code is a broken pipe's (141). Notes on stderr are
// not worth a turn: once its reader is gone they are dropped.
let readerGone = false
const EXIT_BROKEN_PIPE = 141
// Any other failure to write stdout (a full disk, `> /dev/full`) stops the
// command the same way, said in one sentence, and exits as a failure.
let stdoutFailed = false
// A closed terminal answers writes with EIO: nobody is there to read them. The
// SIGHUP that says so may not have arrived yet (the interactive session draws
// continuously): the write's failure is then taken as that hang-up.
const onHangUpWrite = () => {
  if (stoppedBy === undefined) process.kill(process.pid, "SIGHUP")
}
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EIO") return onHangUpWrite()
  if (readerGone || stdoutFailed) return
  if (error.code === "EPIPE") readerGone = true
  else {
    stdoutFailed = true
    process.stderr.write(`turnlog: standard output cannot be written: ${visible(error.message)}\n`)
    // The failed write may be the command's last: its exit code is already set.
    process.exitCode = EXIT_FAILED
  }
  // Already stopping on a signal: a second one would end the process at once.
  if (stoppedBy === undefined) process.kill(process.pid, "SIGINT")
})
process.stderr.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EIO") return onHangUpWrite()
  if (error.code !== "EPIPE") throw error
})

const program = Program.program(process.argv.slice(2)).pipe(Effect.provide(NodeContext.layer))

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  teardown: (exit, onExit) => {
    if (stoppedBy === "SIGHUP" && Exit.isInterrupted(exit)) {
      // Node aborts when it exits normally after its terminal hung up (it
      // cannot restore the terminal's mode), so the work done, the process
      // ends by the signal itself, as a shell reports it: 129. Its listener is
      // gone, so the signal has its default effect at once.
      process.kill(process.pid, "SIGHUP")
    }
    onExit(
      readerGone
        ? EXIT_BROKEN_PIPE
        : stdoutFailed
        ? EXIT_FAILED
        : Exit.isSuccess(exit)
        ? (exit.value as number)
        : Exit.isInterrupted(exit)
        ? EXIT_SIGNAL[stoppedBy ?? "SIGINT"]
        : EXIT_FAILED,
    )
  },
})
