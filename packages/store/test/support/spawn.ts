// Runs test/support/child.ts in its own process and follows what it says.
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const childScript = fileURLToPath(new URL("./child.ts", import.meta.url))

export interface StoreChild {
  readonly process: ChildProcess
  readonly pid: number
  /** What the child wrote to stderr so far. */
  readonly stderr: () => string
  /** Resolves once the child has exited and its output was read. */
  readonly closed: Promise<void>
  /** Every line the child has said so far. */
  readonly lines: ReadonlyArray<string>
  /** Resolves with the first line matching `test`; rejects if the child ends first. */
  readonly waitFor: (test: (line: string) => boolean) => Promise<string>
  /** Sends a line on the child's stdin. */
  readonly send: (line: string) => void
  /** SIGKILL, then resolves once the process is gone and its output read. */
  readonly kill: () => Promise<void>
}

export const spawnChild = (args: ReadonlyArray<string>): StoreChild => {
  const child = spawn(process.execPath, ["--import", "tsx", childScript, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  })
  const lines: Array<string> = []
  let partial = ""
  let stderr = ""
  let waiters: Array<() => void> = []
  const wake = () => {
    const current = waiters
    waiters = []
    for (const waiter of current) waiter()
  }
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n")
    partial = parts.pop()!
    lines.push(...parts)
    wake()
  })
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
  })
  let closed = false
  // "close" comes after the process exited and its pipes were drained.
  const done = new Promise<void>((resolve) =>
    child.on("close", () => {
      closed = true
      wake()
      resolve()
    })
  )
  return {
    process: child,
    pid: child.pid!,
    stderr: () => stderr,
    closed: done,
    lines,
    waitFor: (test) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const line = lines.find(test)
          if (line !== undefined) return resolve(line)
          if (closed) return reject(new Error(`the child ended first (stderr: ${stderr.trim() || "empty"})`))
          waiters.push(check)
        }
        check()
      }),
    send: (line) => {
      child.stdin!.write(`${line}\n`)
    },
    kill: () => {
      child.kill("SIGKILL")
      return done
    },
  }
}
