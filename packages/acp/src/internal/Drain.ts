/**
 * How a connection's sessions end with it: `cancelAll` cancels every prompt in
 * flight and waits until each has ended (durably) and been answered;
 * `drained` waits for the prompts in flight, stops the sessions' timers and
 * MCP servers, and detaches the sessions from the client.
 */
import { Effect } from "effect"
import { SessionId } from "@turnlog/protocol"
import type { Deps } from "./handlers/Deps.js"

export const make = (deps: Pick<Deps, "loop" | "runPromise" | "log" | "connection" | "lifetime" | "mcpServers" | "detach">) => {
  const { connection } = deps
  const drained = async (): Promise<void> => {
    await connection.allAnswered()
    await deps.lifetime.shutdown()
    await deps.mcpServers.closeAll()
    await deps.runPromise(Effect.forEach(connection.openIds(), deps.detach))
  }
  /** Cancels every prompt in flight and waits until each has ended (durably) and been answered. */
  const cancelAll = async (): Promise<void> => {
    const running = connection.busyIds()
    if (running.length > 0) deps.log(`stopping: cancelling the prompt${running.length === 1 ? "" : "s"} in flight`)
    await deps.runPromise(
      Effect.forEach(running, (id) => deps.loop.cancel(SessionId.make(id)), { concurrency: "unbounded" }),
    )
    await connection.allAnswered()
  }
  return { drained, cancelAll }
}
