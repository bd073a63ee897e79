/**
 * The `turnlog` command line run in this process: the same program the
 * binary runs (`Program`), with its stdout and stderr captured, its working
 * directory, environment and stdin given — nothing of this process's own is
 * read or changed. For what only a process shows (signals, broken pipes, the
 * launcher, stdio framing) see `turnlog.ts`.
 */
import { Console as NodeConsole } from "node:console"
import { Readable, Writable } from "node:stream"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Console, Effect } from "effect"
import { Terminal } from "../../src/Output.js"
import { program } from "../../src/Program.js"
import { Invocation } from "../../src/Settings.js"
import { cleanEnv, type Outcome } from "./turnlog.js"

export interface Options {
  readonly cwd: string
  /** Added to the clean environment of `turnlog.ts` (no provider keys, no TURNLOG_* settings). */
  readonly env?: Readonly<Record<string, string>>
  /** Piped to the command's stdin; without it stdin is not piped and empty. */
  readonly stdin?: string | Uint8Array
}

export interface Result {
  readonly stdout: string
  readonly stderr: string
  readonly exitCode: number
}

/** A stream that keeps what is written to it. */
const capture = () => {
  const chunks: Array<Buffer> = []
  const stream = new Writable({
    write(chunk: Buffer | string, encoding, callback) {
      chunks.push(typeof chunk === "string" ? Buffer.from(chunk, encoding) : chunk)
      callback()
    },
  })
  return { stream, text: () => Buffer.concat(chunks).toString("utf8") }
}

/** An Effect console over a Node console that writes to the given streams. */
const consoleOf = (node: globalThis.Console): Console.Console => {
  const say = (f: (...args: Array<unknown>) => void) => (...args: ReadonlyArray<unknown>) => Effect.sync(() => f(...args))
  return {
    [Console.TypeId]: Console.TypeId,
    assert: (condition, ...args) => Effect.sync(() => node.assert(condition, ...args)),
    clear: Effect.sync(() => node.clear()),
    count: (label) => Effect.sync(() => node.count(label)),
    countReset: (label) => Effect.sync(() => node.countReset(label)),
    debug: say(node.debug.bind(node)),
    dir: (item, options) => Effect.sync(() => node.dir(item, options)),
    dirxml: say(node.dirxml.bind(node)),
    error: say(node.error.bind(node)),
    group: (options) => Effect.sync(() => (options?.collapsed ? node.groupCollapsed(options.label) : node.group(options?.label))),
    groupEnd: Effect.sync(() => node.groupEnd()),
    info: say(node.info.bind(node)),
    log: say(node.log.bind(node)),
    table: (data, properties) => Effect.sync(() => node.table(data, properties)),
    time: (label) => Effect.sync(() => node.time(label)),
    timeEnd: (label) => Effect.sync(() => node.timeEnd(label)),
    timeLog: (label, ...args) => Effect.sync(() => node.timeLog(label, ...args)),
    trace: say(node.trace.bind(node)),
    warn: say(node.warn.bind(node)),
    unsafe: node,
  }
}

/** `turnlog <args>` run in-process: what it printed and the exit code the binary would end with. */
export const runCli = async (args: ReadonlyArray<string>, options: Options): Promise<Result> => {
  const stdout = capture()
  const stderr = capture()
  const input = options.stdin
  const invocation = {
    cwd: options.cwd,
    env: { ...cleanEnv(), ...(options.env ?? {}) },
    stdin: Readable.from(input === undefined ? [] : [typeof input === "string" ? Buffer.from(input) : Buffer.from(input)]),
    stdinPiped: () => input !== undefined,
    // The environment is this run's own copy: no other process can read it.
    scrub: () => {},
  }
  const exitCode = await program(args).pipe(
    Effect.provideService(Terminal, { stdout: stdout.stream, stderr: stderr.stream }),
    Effect.provideService(Invocation, invocation),
    Effect.withConsole(consoleOf(new NodeConsole({ stdout: stdout.stream, stderr: stderr.stream, colorMode: false }))),
    Effect.provide(NodeContext.layer),
    Effect.runPromise,
  )
  return { stdout: stdout.text(), stderr: stderr.text(), exitCode }
}

/** `runCli` in the shape of `turnlog.ts`'s `turnlog`, for tests written against the process. */
export const turnlog = async (
  args: ReadonlyArray<string>,
  options: Options,
): Promise<Outcome> => {
  const { exitCode, stderr, stdout } = await runCli(args, options)
  return { code: exitCode, stdout, stderr }
}
