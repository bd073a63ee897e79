/**
 * File descriptors against the process's soft limit, where the platform says
 * both (`/proc/self/fd`, `/proc/self/limits`). An open session holds some for
 * as long as it is open (its log, its lock), and the sessions already open need
 * more to go on: a provider module loaded by a first prompt, the provider's
 * connection, an MCP server's pipes. A `session/new` that would eat into that
 * reserve is refused with one sentence, so a flood of new sessions cannot make
 * an open session's prompt fail with EMFILE. Where the counts are unknown
 * (another platform) or the limit is unlimited, nothing is refused.
 */
import { readdirSync, readFileSync } from "node:fs"
import { RequestError } from "@agentclientprotocol/sdk"

/** The soft "Max open files" limit, or undefined when unknown or unlimited. */
export const softLimit = (): number | undefined => {
  try {
    const line = readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files"))
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0]
    return soft !== undefined && /^\d+$/.test(soft) ? Number(soft) : undefined
  } catch {
    return undefined
  }
}

/** How many descriptors the process has open (without the one reading the directory), or undefined when unknown. */
export const openCount = (): number | undefined => {
  try {
    return readdirSync("/proc/self/fd").length - 1
  } catch {
    return undefined
  }
}

/**
 * Descriptors kept free for the sessions already open: a first prompt loads its
 * provider's code (a chunk or two of the bundled command) and opens a
 * connection; tool calls open files and pipes.
 */
export const reserveFor = (limit: number): number => Math.max(16, Math.ceil(limit / 4))

/** What one new session may hold until it is open (its log, its lock, the store's reads). */
const PER_SESSION = 4

/** `session/new` requests admitted and not yet answered: their descriptors are not open yet. */
let pending = 0

/** Why a new session cannot be opened now, or undefined when it can. */
export const refusal = (limit = softLimit(), open = openCount()): string | undefined => {
  if (limit === undefined || open === undefined) return undefined
  const reserve = reserveFor(limit)
  if (open + (pending + 1) * PER_SESSION + reserve <= limit) return undefined
  return `no new session is opened: ${open} of this process's ${limit} file descriptors are in use and ${reserve} are kept for the sessions already open; close a session (session/close) or raise the limit (ulimit -n)`
}

/**
 * `handler` (the `session/new` handler) behind the check: refused with the
 * sentence above when the reserve would be touched, counted while it runs.
 */
export const guarded = <A, R>(handler: (request: A) => Promise<R>) => async (request: A): Promise<R> => {
  const why = refusal()
  if (why !== undefined) throw new RequestError(-32000, why)
  pending++
  try {
    return await handler(request)
  } finally {
    pending--
  }
}
