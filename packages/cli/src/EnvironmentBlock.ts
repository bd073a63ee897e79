/**
 * Clears credential values out of this process's initial environment block.
 *
 * On Linux `/proc/<pid>/environ` shows the environment a process was started
 * with, read from its memory — not `process.env`: deleting a variable there
 * leaves the value in the block, readable by any process of the same user (a
 * command the agent runs, through `/proc/$PPID/environ`). So each credential
 * variable is first set again (the C library then keeps its value in a new,
 * private copy that `process.env` reads from), and its value in the original
 * block is overwritten with zero bytes through `/proc/self/mem`. The process
 * goes on seeing every variable as before; `/proc/<pid>/environ` shows
 * `NAME=` and nothing after it.
 *
 * This closes that one window. A process of the same user that may trace this
 * one can still read its memory; only a sandbox that hides this process from
 * commands closes that (see `Sandbox` in `@turnlog/agent`).
 */
import * as fs from "node:fs"

/** The environment block's bounds: fields 50 and 51 (`env_start`, `env_end`) of `/proc/self/stat`. */
const bounds = (): { readonly start: number; readonly end: number } | undefined => {
  const stat = fs.readFileSync("/proc/self/stat", "latin1")
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).trim().split(" ")
  const start = Number(fields[50 - 3])
  const end = Number(fields[51 - 3])
  return Number.isSafeInteger(start) && Number.isSafeInteger(end) && end > start ? { start, end } : undefined
}

/**
 * Overwrites the values of `names` in the initial environment block; returns
 * how many values were cleared (0 where the platform offers no way: not Linux,
 * or `/proc` not mounted or not writable).
 */
export const scrub = (names: ReadonlyArray<string>, env: NodeJS.ProcessEnv = process.env): number => {
  if (process.platform !== "linux") return 0
  const wanted = new Set(names.filter((name) => env[name] !== undefined && env[name] !== ""))
  if (wanted.size === 0) return 0
  try {
    const block = bounds()
    if (block === undefined) return 0
    // A private copy first: what the process reads must not point into the block cleared below.
    // eslint-disable-next-line no-self-assign -- the assignment is what copies the value out of the block
    for (const name of wanted) env[name] = env[name]
    const fd = fs.openSync("/proc/self/mem", "r+")
    try {
      const bytes = Buffer.alloc(block.end - block.start)
      fs.readSync(fd, bytes, 0, bytes.length, block.start)
      let cleared = 0
      for (let offset = 0; offset < bytes.length;) {
        const stop = bytes.indexOf(0, offset)
        const end = stop === -1 ? bytes.length : stop
        const equals = bytes.indexOf(0x3d, offset)
        if (equals > offset && equals < end && wanted.has(bytes.toString("latin1", offset, equals)) && end > equals + 1) {
          const zeros = Buffer.alloc(end - equals - 1)
          fs.writeSync(fd, zeros, 0, zeros.length, block.start + equals + 1)
          cleared++
        }
        offset = end + 1
      }
      return cleared
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    // Best effort: a kernel that refuses the write leaves the block as it was.
    return 0
  }
}
