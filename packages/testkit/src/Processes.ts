/**
 * The processes a test started indirectly (an MCP server spawned by the
 * agent), found by a marker on their command line: to show that they run
 * while they should and that none outlives its owner. Linux (`/proc`) only.
 */
import { readdirSync, readFileSync } from "node:fs"

/** The ids of running processes whose command line holds `marker`. */
export const processesWith = (marker: string): Array<number> =>
  readdirSync("/proc").filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker)
    } catch {
      // The process ended between the listing and the read.
      return false
    }
  }).map(Number)

/**
 * The processes with `marker` on their command line that run `program` itself
 * (its first word): a server started in a sandbox has the sandbox's processes
 * (bwrap) carrying the same command line around it.
 */
export const programsWith = (marker: string, program: string = process.execPath): Array<number> =>
  processesWith(marker).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] === program
    } catch {
      return false
    }
  })

/** Waits (up to about ten seconds) for every process with `marker` to end; those still running. */
export const gone = async (marker: string): Promise<Array<number>> => {
  for (let i = 0; i < 500 && processesWith(marker).length > 0; i++) await new Promise((r) => setTimeout(r, 20))
  return processesWith(marker)
}
