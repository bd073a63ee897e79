/**
 * A byte stream read line by line on its way through, for tapping an ndjson
 * protocol stream between an agent and its client: `onLine` sees each
 * complete line (to keep it for assertions) and says whether it goes on. What
 * follows the last newline goes on, as it is, when the stream ends.
 */
export const tap = (onLine: (line: string) => boolean): TransformStream<Uint8Array, Uint8Array> => {
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  let pending = ""
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true })
      let newline = pending.indexOf("\n")
      while (newline >= 0) {
        const line = pending.slice(0, newline)
        pending = pending.slice(newline + 1)
        if (onLine(line)) controller.enqueue(encoder.encode(`${line}\n`))
        newline = pending.indexOf("\n")
      }
    },
    flush(controller) {
      if (pending !== "") controller.enqueue(encoder.encode(pending))
    },
  })
}
