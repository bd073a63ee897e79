/**
 * An in-memory stdio pair between a test client and the server, with every
 * frame the agent writes kept (as the editor would read them) and a way to
 * write raw bytes the SDK client would never send.
 */
import * as acp from "@agentclientprotocol/sdk"
import { Lines } from "@turnlog/testkit"

export interface Wire {
  readonly agent: acp.Stream
  readonly client: acp.Stream
  /** Raw lines written by the agent, parsed. */
  readonly frames: Array<unknown>
  /** Writes bytes to the agent as if from the client. */
  readonly writeRaw: (text: string) => Promise<void>
  /** Closes the client's side (the agent sees end of input). */
  readonly closeInput: () => Promise<void>
}

export const makeWire = (): Wire => {
  const toAgent = new TransformStream<Uint8Array, Uint8Array>()
  const toClient = new TransformStream<Uint8Array, Uint8Array>()
  const frames: Array<unknown> = []
  const tapped = toClient.readable.pipeThrough(Lines.tap((line) => {
    if (line.trim() !== "") frames.push(JSON.parse(line))
    return true
  }))
  const writer = toAgent.writable.getWriter()
  const shared = new WritableStream<Uint8Array>({
    write: (chunk) => writer.write(chunk),
    close: () => writer.close(),
  })
  const encoder = new TextEncoder()
  return {
    agent: acp.ndJsonStream(toClient.writable, toAgent.readable),
    client: acp.ndJsonStream(shared, tapped),
    frames,
    writeRaw: (text) => writer.write(encoder.encode(text)),
    closeInput: () => writer.close(),
  }
}
