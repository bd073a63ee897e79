/**
 * The process's stdin and stdout as an ACP stream. stdout carries nothing but
 * protocol frames; everything else a process says goes to stderr.
 */
import { Readable, Writable } from "node:stream"
import * as acp from "@agentclientprotocol/sdk"

export const stream = (
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
): acp.Stream =>
  acp.ndJsonStream(
    Writable.toWeb(output as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(input as Readable) as ReadableStream<Uint8Array>,
  )
