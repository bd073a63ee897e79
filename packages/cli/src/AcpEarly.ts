/**
 * `turnlog acp` answers `initialize` before the command has loaded. An editor
 * waits for that answer before it counts the agent as started, and loading the
 * agent (effect, the store, the loop, the providers) takes several times node's
 * own start. For a bare `turnlog acp` the launcher calls `answerInitialize`
 * before it loads the command: the first frame is read and, when it is an
 * `initialize` request, answered at once with what the server answers
 * (`initializeResponse` with this build's version and authentication method).
 * Every byte read is handed over (`handOver`) to the server's stream, which
 * reads them again — the protocol's SDK serves no other request before it has
 * answered `initialize` itself — and does not send its own answer a second time.
 * Anything else first (a frame that is not `initialize`, a named config file
 * that is missing, no line within 64 KiB) is left to the server unanswered.
 */
import { existsSync } from "node:fs"
import { initializeResponse } from "@turnlog/acp/Initialize"
import type * as Stdio from "@turnlog/acp/Stdio"
import * as AcpAuthMethod from "./AcpAuthMethod.js"
import * as ConfigLocation from "./ConfigLocation.js"
import { VERSION } from "./Version.js"

/** The most read while looking for the first frame's end. */
const FIRST_FRAME_LIMIT = 64 * 1024

/**
 * Where the early answer leaves what it read for the server. The launcher loads
 * the early answer and the command as two separate builds, each with its own
 * copy of this module, so the hand-over lives on the global object, not in a
 * module variable.
 */
const HAND_OVER = Symbol.for("turnlog/AcpEarly/handOver")

const holder = globalThis as { [HAND_OVER]?: Stdio.Options }

/** The bytes read and the request answered, for the server's stream; nothing when no early answer ran. */
export const handOver = (): Stdio.Options => holder[HAND_OVER] ?? {}

/** The `initialize` request's id, when `line` is one the server would answer with success. */
export const initializeId = (line: string): string | number | undefined => {
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch {
    return undefined
  }
  if (typeof message !== "object" || message === null) return undefined
  const { id, jsonrpc, method, params } = message as Record<string, unknown>
  if (jsonrpc !== "2.0" || method !== "initialize" || (typeof id !== "string" && typeof id !== "number")) return undefined
  if (typeof params !== "object" || params === null) return undefined
  const version = (params as Record<string, unknown>).protocolVersion
  return typeof version === "number" && Number.isInteger(version) && version >= 0 && version <= 65535 ? id : undefined
}

/** The answer the server gives `initialize` under this environment, as one JSON text. */
export const answerFrame = (id: string | number, env: ConfigLocation.Environment, cwd: string): string | undefined => {
  const location = ConfigLocation.locate({}, env, cwd)
  // A named config file that is missing stops the command with a usage error: leave that to it.
  if (location.named && location.configFile !== undefined && !existsSync(location.configFile)) return undefined
  return JSON.stringify({ jsonrpc: "2.0", id, result: initializeResponse(VERSION, [AcpAuthMethod.authMethod(location)]) })
}

/** Reads the first frame from `input` and answers it on `output` when it is `initialize`; resolves once the bytes are handed over. */
export const answerInitialize = async (
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
  env: ConfigLocation.Environment = process.env,
  cwd: string = process.cwd(),
): Promise<void> => {
  const read = await firstLine(input)
  const prefix = Buffer.concat(read.chunks)
  const id = read.line === undefined ? undefined : initializeId(read.line)
  const frame = id === undefined ? undefined : answerFrame(id, env, cwd)
  if (id !== undefined && frame !== undefined) {
    output.write(`${frame}\n`)
    holder[HAND_OVER] = { prefix, answered: { id, frame } }
  } else {
    holder[HAND_OVER] = { prefix }
  }
}

/** Reads until the first newline (or the end, or the limit), then stops reading. */
const firstLine = (input: NodeJS.ReadStream): Promise<{ readonly chunks: ReadonlyArray<Buffer>; readonly line: string | undefined }> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const finish = (line: string | undefined) => {
      input.off("data", onData)
      input.off("end", onEnd)
      input.off("error", onEnd)
      input.pause()
      resolve({ chunks, line })
    }
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk
      const newline = bytes.indexOf(10)
      chunks.push(bytes)
      if (newline >= 0) finish(Buffer.concat(chunks).subarray(0, size + newline).toString("utf8"))
      else if ((size += bytes.length) > FIRST_FRAME_LIMIT) finish(undefined)
    }
    const onEnd = () => finish(undefined)
    input.on("data", onData)
    input.on("end", onEnd)
    input.on("error", onEnd)
  })
