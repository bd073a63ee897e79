/**
 * A stop signal's grace while an agent answers its prompts. The first SIGINT
 * or SIGTERM interrupts the command (the runtime's handler), whose shutdown
 * cancels the prompts in flight and answers each `cancelled`. A launcher that
 * forwards Ctrl-C while turnlog also sits in the terminal's process group
 * delivers a second SIGINT moments later; by default that one would end the
 * process before the answers are written. While held, the second signal is
 * only noted on stderr; a third ends the process at once, as the signal would.
 */
import { Effect } from "effect"

type HeldSignal = "SIGINT" | "SIGTERM"
const HELD: ReadonlyArray<HeldSignal> = ["SIGINT", "SIGTERM"]

/** How many stop signals end the process at once while held (the first only asks it to stop). */
export const FORCE_AT = 3

/** Holds SIGINT and SIGTERM for the scope's life, as the module says; `note` gets one line per held signal. */
export const hold = (
  note: (line: string) => void,
  /** Sends the signal again once nothing holds it (the process's own `kill`; replaced in tests). */
  resend: (signal: HeldSignal) => void = (signal) => void process.kill(process.pid, signal),
) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      let received = 0
      const release = () => {
        for (const signal of HELD) process.off(signal, onSignal)
      }
      const onSignal = (signal: HeldSignal) => {
        received += 1
        if (received === 1) return
        if (received < FORCE_AT) {
          note(`${signal} received again: still answering the prompts in flight; send it once more to stop at once`)
          return
        }
        // Without a listener left, the signal has its default effect.
        release()
        resend(signal)
      }
      for (const signal of HELD) process.on(signal, onSignal)
      return release
    }),
    (release) => Effect.sync(release),
  )
