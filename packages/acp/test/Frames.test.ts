import { describe, expect, it } from "vitest"
import { Frames } from "@turnlog/acp"

const run = async (chunks: ReadonlyArray<string>, limit: number) => {
  const dropped: Array<Frames.Oversized> = []
  const encoder = new TextEncoder()
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk))
      controller.close()
    },
  })
  let out = ""
  const decoder = new TextDecoder()
  const reader = source.pipeThrough(Frames.guard((line) => dropped.push(line), limit)).getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    out += decoder.decode(value, { stream: true })
  }
  return { out, dropped }
}

describe("the frame guard", () => {
  it("passes lines within the limit unchanged, however they are chunked, and drops a longer one whole", async () => {
    const long = `{"jsonrpc":"2.0","id":"req-9","method":"session/prompt","params":{"text":"${"y".repeat(100)}"}}`
    const { out, dropped } = await run(['{"a":1}\n{"b"', ":2}\n", long.slice(0, 40), long.slice(40), '\n{"c":3}'], 64)
    expect(out).toBe('{"a":1}\n{"b":2}\n{"c":3}')
    expect(dropped).toEqual([{ bytes: long.length, id: "req-9", method: "session/prompt" }])
  })

  it("reads only top-level id and method: a nested id or a notification has none", () => {
    expect(Frames.headFields(`{"method":"x","params":{"id":5,"s":"\\"id\\":6"},"id":7`)).toEqual({ method: "x", id: 7 })
    expect(Frames.headFields(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s","id":3`)).toEqual({
      method: "session/cancel",
    })
    expect(Frames.headFields(`{"id":null,"method":"m"`)).toEqual({ id: null, method: "m" })
  })
})
