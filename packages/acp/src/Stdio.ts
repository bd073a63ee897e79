/**
 * The process's stdin and stdout as an ACP stream. stdout carries nothing but
 * protocol frames; everything else a process says goes to stderr. A frame over
 * the SDK's size limit does not end the connection (see `Frames.ts`): the
 * request it carried is answered with an error and the others keep being served.
 *
 * The command line may have read the first frame already and answered it
 * (`initialize`, before the agent loaded): those bytes are handed in as
 * `prefix`, read again ahead of the rest, and the server's own answer to that
 * request id (`answered`) is not sent a second time.
 */
import { Readable, Writable } from "node:stream"
import * as acp from "@agentclientprotocol/sdk"
import * as Frames from "./Frames.js"

const tooLarge = (line: Frames.Oversized, limit: number): string =>
  `a message of ${line.bytes} bytes is over the ${limit}-byte limit of one frame and was not read`

/** What is said on stderr of a dropped line, in one sentence. */
export const describeOversized = (line: Frames.Oversized, limit: number = Frames.LIMIT): string => {
  const what = line.method === undefined ? "" : ` (${line.method}${line.id === undefined ? "" : `, request id ${JSON.stringify(line.id)}`})`
  const answer = line.id === undefined ? "" : "; answered with an error"
  return `${tooLarge(line, limit)}${what}${answer}`
}

/** A request the command line answered before the server started: its id and the answer's JSON text. */
export interface Answered {
  readonly id: string | number
  readonly frame: string
}

export interface Options {
  readonly log?: (line: string) => void
  readonly limit?: number
  /** Bytes already read from `input`: the server reads them first. */
  readonly prefix?: Uint8Array
  /** A request already answered: the server's answer to it is dropped (and compared). */
  readonly answered?: Answered
}

export const stream = (
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
  options: Options = {},
): acp.Stream => {
  const limit = options.limit ?? Frames.LIMIT
  const log = options.log ?? ((line: string) => void process.stderr.write(`turnlog: ${line}\n`))
  // One writer for the SDK's frames and the guard's answers, so a frame is never split.
  const writer = (Writable.toWeb(output as Writable) as WritableStream<Uint8Array>).getWriter()
  const repeated = options.answered === undefined ? undefined : repeatedAnswer(options.answered, log)
  const shared = new WritableStream<Uint8Array>({
    write: (chunk) => repeated?.(chunk) === true ? undefined : writer.write(chunk),
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  })
  const encoder = new TextEncoder()
  const onOversized = (line: Frames.Oversized) => {
    log(describeOversized(line, limit))
    // A notification (no id) is not answered; a request is, by its id.
    if (line.id === undefined) return
    const answer = {
      jsonrpc: "2.0",
      id: line.id,
      error: { code: -32600, message: `Invalid request: ${tooLarge(line, limit)}` },
    }
    void writer.write(encoder.encode(`${JSON.stringify(answer)}\n`)).catch(() => undefined)
  }
  const source = Readable.toWeb(input as Readable) as ReadableStream<Uint8Array>
  const guarded = (options.prefix === undefined || options.prefix.length === 0 ? source : prefixed(options.prefix, source)).pipeThrough(
    Frames.guard(onOversized, limit),
  )
  // The guard passes whole lines of at most `limit` bytes: the SDK's own limit is never reached.
  return acp.ndJsonStream(shared, guarded, { maxMessageBytes: limit + 1 })
}

/**
 * Whether an outgoing frame is the server's answer to the request answered
 * before it started; true once, for that frame. An answer that differs from the
 * one sent is said on stderr: the two are made by the same function, so it
 * would be a defect.
 */
const repeatedAnswer = (answered: Answered, log: (line: string) => void) => {
  const decoder = new TextDecoder()
  let pending = true
  return (chunk: Uint8Array): boolean => {
    if (!pending) return false
    // The SDK writes one message per chunk, each ending in a newline.
    const text = decoder.decode(chunk).trimEnd()
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch {
      return false
    }
    if (typeof message !== "object" || message === null || (message as { id?: unknown }).id !== answered.id || "method" in message) return false
    pending = false
    if (text !== answered.frame) log(`the answer to request ${JSON.stringify(answered.id)} sent early differs from the server's: ${text}`)
    return true
  }
}

/** `rest` with `first` ahead of it. */
const prefixed = (first: Uint8Array, rest: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> => {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  return new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(first),
    pull: async (controller) => {
      reader ??= rest.getReader()
      const { done, value } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
    cancel: (reason) => (reader ?? rest).cancel(reason),
  })
}
