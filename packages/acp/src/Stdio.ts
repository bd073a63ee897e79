/**
 * The process's stdin and stdout as an ACP stream. stdout carries nothing but
 * protocol frames; everything else a process says goes to stderr. A frame over
 * the SDK's size limit does not end the connection (see `Frames.ts`): the
 * request it carried is answered with an error and the others keep being served.
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

export const stream = (
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
  options: { readonly log?: (line: string) => void; readonly limit?: number } = {},
): acp.Stream => {
  const limit = options.limit ?? Frames.LIMIT
  const log = options.log ?? ((line: string) => void process.stderr.write(`turnlog: ${line}\n`))
  // One writer for the SDK's frames and the guard's answers, so a frame is never split.
  const writer = (Writable.toWeb(output as Writable) as WritableStream<Uint8Array>).getWriter()
  const shared = new WritableStream<Uint8Array>({
    write: (chunk) => writer.write(chunk),
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
  const guarded = (Readable.toWeb(input as Readable) as ReadableStream<Uint8Array>).pipeThrough(
    Frames.guard(onOversized, limit),
  )
  // The guard passes whole lines of at most `limit` bytes: the SDK's own limit is never reached.
  return acp.ndJsonStream(shared, guarded, { maxMessageBytes: limit + 1 })
}
