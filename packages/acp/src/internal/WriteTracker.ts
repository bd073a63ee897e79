/**
 * Outgoing frames of a connection, counted, so that a shutdown can wait until
 * the answers it caused have been written before the connection closes.
 */
import type * as acp from "@agentclientprotocol/sdk"

/**
 * The stream with its outgoing writes counted; `written` resolves once every
 * frame handed to it so far — and any the connection sends in the turns of
 * the event loop just after (a handler's answer) — has been written.
 */
export const trackWrites = (stream: acp.Stream) => {
  let pending = 0
  const idle: Array<() => void> = []
  const writer = stream.writable.getWriter()
  const writable = new WritableStream<acp.AnyMessage>({
    write: async (message) => {
      pending++
      try {
        await writer.write(message)
      } finally {
        pending--
        if (pending === 0) { for (const resolve of idle.splice(0)) resolve() }
      }
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  })
  const written = async () => {
    // An answer is sent after its handler returns: let it reach the stream first.
    await new Promise((resolve) => setImmediate(resolve))
    if (pending > 0) await new Promise<void>((resolve) => idle.push(resolve))
  }
  return { stream: { readable: stream.readable, writable } satisfies acp.Stream, written }
}
