/**
 * Runs one shell command for the `run_command` tool. The command gets its own
 * process group so that a timeout or a cancelled turn kills everything it
 * started, not just the shell. Output (stdout and stderr interleaved, as a
 * terminal would show them) is kept up to a cap; what is cut is counted. The
 * command ends when the shell exits: a job it started in the background keeps
 * running, and is not waited for (in a sandbox it ends with the command: see
 * `sandbox`).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { Duration, Effect } from "effect"
import { ToolFailed, ToolTimeout } from "../ToolError.js"
import type { Sandbox } from "../Sandbox.js"

export interface CommandOptions {
  readonly command: string
  readonly cwd: string
  readonly timeoutMs: number
  readonly outputCapBytes: number
  /** The command's whole environment (default: this process's). */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Where the shell runs (default: directly, as this process's child). */
  readonly sandbox?: Sandbox
}

export interface CommandResult {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly output: string
}

class Output {
  private readonly parts: Array<Buffer> = []
  private kept = 0
  private omitted = 0
  constructor(private readonly cap: number) {}
  add(chunk: Buffer) {
    const room = this.cap - this.kept
    if (room > 0) {
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room)
      this.parts.push(part)
      this.kept += part.length
    }
    this.omitted += Math.max(0, chunk.length - Math.max(0, room))
  }
  text(): string {
    const body = Buffer.concat(this.parts).toString("utf8")
    return this.omitted > 0 ? `${body}\n[output truncated: ${this.omitted} more bytes]` : body
  }
}

/** `text` as the model sees a command's output: cut at `cap` bytes, with what was cut counted. */
export const capOutput = (text: string, cap: number): string => {
  const output = new Output(cap)
  output.add(Buffer.from(text, "utf8"))
  return output.text()
}

/** How long output is still read after the shell exits, for a job it left holding the pipes. */
const DRAIN_MS = 100

const killGroup = (pid: number | undefined) => {
  if (pid === undefined) return
  try {
    process.kill(-pid, "SIGKILL")
  } catch {
    // the group is already gone
  }
}

/** Why `cwd` cannot be a command's working directory, or undefined when it can. */
export const missingDirectory = (cwd: string): string | undefined => {
  try {
    return fs.statSync(cwd).isDirectory() ? undefined : `the working directory ${cwd} is not a directory`
  } catch {
    return `the working directory ${cwd} no longer exists`
  }
}

export const runCommand = (options: CommandOptions): Effect.Effect<CommandResult, ToolFailed | ToolTimeout> => {
  const output = new Output(options.outputCapBytes)
  const run = Effect.async<CommandResult, ToolFailed>((resume) => {
    // Without this, a deleted directory is reported as the shell missing (`spawn /bin/sh ENOENT`).
    const gone = missingDirectory(options.cwd)
    if (gone !== undefined) {
      resume(Effect.fail(new ToolFailed({ tool: "run_command", detail: gone })))
      return
    }
    const { file, args } = options.sandbox?.wrap(options.command, options.cwd) ??
      { file: "/bin/sh", args: ["-c", options.command] }
    const child = spawn(file, args, {
      cwd: options.cwd,
      ...(options.env === undefined ? {} : { env: { ...options.env } }),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    })
    let settled = false
    const settle = (effect: Effect.Effect<CommandResult, ToolFailed>) => {
      if (settled) return
      settled = true
      resume(effect)
    }
    child.stdout.on("data", (chunk: Buffer) => output.add(chunk))
    child.stderr.on("data", (chunk: Buffer) => output.add(chunk))
    child.once("error", (error) => settle(Effect.fail(new ToolFailed({ tool: "run_command", detail: missingDirectory(options.cwd) ?? error.message }))))
    // The command is done when the shell exits. A job it left in the background
    // may hold the output pipes open: what is already written is read for a
    // moment more, then the pipes are let go (the job keeps running).
    child.once("exit", (exitCode, signal) => {
      const finish = () => {
        clearTimeout(drain)
        child.stdout.destroy()
        child.stderr.destroy()
        settle(Effect.succeed({ exitCode, signal, output: output.text() }))
      }
      const drain = setTimeout(finish, DRAIN_MS)
      child.once("close", finish)
    })
    // Interruption (timeout or a cancelled turn) kills the whole group.
    return Effect.sync(() => killGroup(child.pid))
  })
  return run.pipe(
    Effect.timeoutFail({
      duration: Duration.millis(options.timeoutMs),
      onTimeout: () => new ToolTimeout({ tool: "run_command", timeoutMs: options.timeoutMs, output: output.text() }),
    }),
  )
}
