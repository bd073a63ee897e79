/**
 * While the interactive session draws the terminal, a line written to stderr
 * (a diagnostic, a note of the store or of an MCP server) would land in the
 * middle of the drawing and break it: when stderr is that same terminal, each
 * line is shown in the view instead, in order. A stderr redirected elsewhere
 * (a file) keeps receiving it as written.
 */

/** Sends stderr's lines to `show` until the returned function is called. */
export const capture = (show: (line: string) => void): () => void => {
  if (process.stderr.isTTY !== true) return () => {}
  const original = process.stderr.write
  let pending = ""
  process.stderr.write = ((chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8")
    pending += text
    const lines = pending.split("\n")
    pending = lines.pop() ?? ""
    for (const line of lines) show(line.replace(/^turnlog: /, ""))
    const done = typeof encoding === "function" ? encoding : callback
    if (typeof done === "function") done()
    return true
  }) as typeof process.stderr.write
  return () => {
    process.stderr.write = original
    if (pending !== "") original.call(process.stderr, `${pending}\n`)
  }
}
