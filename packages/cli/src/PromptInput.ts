/**
 * The prompt of `run`, from its arguments and standard input: `turnlog run -`
 * reads the prompt from stdin; `echo … | turnlog run` too; a prompt argument
 * with piped input gets the input after it as a fenced block. Input counts as
 * piped when stdin is a pipe or a file — not a terminal, a socket (a parent
 * process that never closes it) or a device like /dev/null — so a prompt
 * given as an argument never waits on an input nobody sends. Stdin is read
 * as a stream, to its end.
 */
import { Effect } from "effect"
import { UsageError } from "./CliError.js"
import { describeBytes } from "./RegularFile.js"
import { Invocation } from "./Settings.js"

/** A prompt is text a person or a script gives; far more is a mistake (`cat /dev/urandom | …`). */
export const MAX_STDIN_BYTES = 32 * 1024 * 1024

/** `stdin` to its end, as UTF-8. */
export const readStdin = (stdin: AsyncIterable<unknown>, maxBytes = MAX_STDIN_BYTES): Effect.Effect<string, UsageError> =>
  Effect.tryPromise({
    try: async () => {
      const chunks: Array<Buffer> = []
      let size = 0
      for await (const chunk of stdin) {
        const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer)
        size += buffer.length
        if (size > maxBytes) throw new Error(`is larger than ${describeBytes(maxBytes)}: not read`)
        chunks.push(buffer)
      }
      return Buffer.concat(chunks).toString("utf8")
    },
    catch: (e) => new UsageError({ message: `standard input ${e instanceof Error ? e.message : String(e)}` }),
  })

/** `text` in a fence longer than any run of backticks inside it. */
export const fenced = (text: string): string => {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length))
  const fence = "`".repeat(Math.max(3, longest + 1))
  return `${fence}\n${text.replace(/\n+$/, "")}\n${fence}`
}

export interface Sources {
  readonly piped: () => boolean
  readonly read: Effect.Effect<string, UsageError>
}

/** The prompt: the arguments, stdin (`-`, or nothing given and input piped), or both (the input fenced after). */
export const compose = (args: ReadonlyArray<string>, sourcesGiven?: Sources): Effect.Effect<string, UsageError> =>
  Effect.gen(function*() {
    const invocation = yield* Invocation
    const sources = sourcesGiven ?? { piped: invocation.stdinPiped, read: Effect.suspend(() => readStdin(invocation.stdin)) }
    if (args.length === 1 && args[0] === "-") return (yield* sources.read).trim()
    const given = args.join(" ").trim()
    if (args.length === 0) {
      if (!sources.piped()) {
        return yield* new UsageError({ message: "no prompt: turnlog run <prompt…>, or pipe it in: echo <prompt> | turnlog run" })
      }
      return (yield* sources.read).trim()
    }
    if (!sources.piped()) return given
    const input = yield* sources.read
    return input.trim() === "" ? given : `${given}\n\n${fenced(input)}`
  })
