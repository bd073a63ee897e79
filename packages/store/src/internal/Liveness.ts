/**
 * Whether the holder of a lease is still there. Both durable layers record a
 * holder as its host, its pid and a token: a random part, then `@` and the holder
 * process's start time where the system tells it (Linux: `/proc/<pid>/stat`).
 *
 * A holder is live if its process exists and, when the token names a start
 * time, the process with that pid now started at that same time: a pid reused
 * by an unrelated process after the holder died does not keep the lease. For
 * our own pid, the holder is live only if this process holds the token (a
 * container restart reuses pids, and a lease left by the previous run is
 * stale). A token without a start time (written where none could be read) is
 * judged by its pid alone. A holder on another host cannot be judged from
 * here and counts as live; one recorded without a host (by an older build)
 * is one of this host's.
 */
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { hostname } from "node:os"
import type { Holder } from "../StoreError.js"
import { errorCode } from "./FileIo.js"

/** The host this process runs on, as a lease names it. */
export const thisHost: string = hostname()

/** This process as the holder of a lease (`program`: as the store was told to name it). */
export const self = (program?: string): Holder => ({
  host: thisHost,
  pid: process.pid,
  ...(program !== undefined ? { program } : {}),
})

/** A lease as both durable layers store it. */
export interface Lease extends Holder {
  readonly token: string
}

/** The holder a lease names, with an older build's missing host read as this one. */
export const holderOf = (lease: Lease): Holder => ({
  host: lease.host === "" ? thisHost : lease.host,
  pid: lease.pid,
  ...(lease.program !== undefined ? { program: lease.program } : {}),
})

const heldHere = new Set<string>()

export const hold = (token: string): void => {
  heldHere.add(token)
}

export const drop = (token: string): void => {
  heldHere.delete(token)
}

/** The fields of `/proc/<pid>/stat` after the command name, or undefined when it cannot be read. */
const statOf = (pid: number): ReadonlyArray<string> | undefined => {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch {
    return undefined
  }
  // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so count
  // fields after its last `)`.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
}

/**
 * When process `pid` started, as the system counts it (clock ticks since boot
 * on Linux), or "" when that cannot be read (no such process, no `/proc`).
 */
export const startTimeOf = (pid: number): string => {
  // The start time is field 22, the 20th after the command name.
  const started = statOf(pid)?.[19]
  return started !== undefined && /^\d+$/.test(started) ? started : ""
}

/**
 * Whether process `pid` has ended but is not reaped yet: a zombie (`Z`) or
 * dead (`X`). A killed holder whose parent does not reap it (an orphan under
 * an init that does not reap, as in many containers) stays a zombie for good;
 * it answers signal 0 like a live process but will never write again.
 */
export const hasEnded = (pid: number): boolean => {
  const state = statOf(pid)?.[0]
  return state === "Z" || state === "X" || state === "x"
}

let ownStart: string | undefined

/** A fresh token for a lease this process takes: random, then `@` and this process's start time. */
export const newToken = (): string => `${randomUUID()}@${(ownStart ??= startTimeOf(process.pid))}`

/** The start time a token names, or "" if it names none. */
export const startTimeIn = (token: string): string => {
  const at = token.lastIndexOf("@")
  return at < 0 ? "" : token.slice(at + 1)
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

export const isLive = (holder: Lease): boolean => {
  if (holder.host !== "" && holder.host !== thisHost) return true
  if (holder.pid === process.pid) return heldHere.has(holder.token)
  if (!isAlive(holder.pid) || hasEnded(holder.pid)) return false
  const recorded = startTimeIn(holder.token)
  if (recorded === "") return true
  // Unreadable now (the process just exited, or `/proc` hides it): judged by
  // its pid, so a lease is never taken from a holder that may be alive.
  const current = startTimeOf(holder.pid)
  return current === "" || current === recorded
}
