/**
 * Whether the holder of a lease is still there. Both durable layers record a
 * holder as its pid and a random token; a holder is live if its process
 * exists — or, for our own pid, if this process holds the token (a container
 * restart reuses pids, and a lease left by the previous run is stale).
 */
import { errorCode } from "./FileIo.js"

const heldHere = new Set<string>()

export const hold = (token: string): void => {
  heldHere.add(token)
}

export const drop = (token: string): void => {
  heldHere.delete(token)
}

export const isAlive = (pid: number): boolean => {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errorCode(error) === "EPERM"
  }
}

export const isLive = (holder: { readonly pid: number; readonly token: string }): boolean =>
  holder.pid === process.pid ? heldHere.has(holder.token) : isAlive(holder.pid)
