/** Effects run for a request handler: a typed failure is thrown as the JSON-RPC error, anything else as an internal error. */
import * as acp from "@agentclientprotocol/sdk"
import { Cause, type Effect, Exit, Option, Runtime } from "effect"

export type Run = <A>(effect: Effect.Effect<A, acp.RequestError>, signal?: AbortSignal) => Promise<A>

export const make = (runtime: Runtime.Runtime<never>, log: (line: string) => void): Run => async (effect, signal) => {
  const exit = await Runtime.runPromiseExit(runtime)(effect, signal === undefined ? undefined : { signal })
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) throw failure.value
  // The editor gets one line; the whole cause (stack included) goes to the log.
  const squashed = Cause.squash(exit.cause)
  log(`internal error: ${Cause.pretty(exit.cause)}`)
  throw new acp.RequestError(-32603, `internal error: ${squashed instanceof Error ? squashed.message : String(squashed)}`)
}
