/**
 * The guard in front of the SDK's newline-delimited JSON reader. The SDK
 * refuses a frame over its limit (32 MiB) by failing the whole input stream,
 * which ends the connection and every session on it. Here a line over the
 * limit is dropped as it arrives (never held whole), the request it carried
 * is answered with a JSON-RPC error when its id can be read from the line's
 * start, and every other line passes on unchanged.
 */
import { DEFAULT_MAX_MESSAGE_BYTES } from "@agentclientprotocol/sdk"

export const LIMIT = DEFAULT_MAX_MESSAGE_BYTES

/** How much of a dropped line is kept to find its id and method. */
const HEAD_BYTES = 64 * 1024

/** A dropped line: its size and what its start says of it. */
export interface Oversized {
  readonly bytes: number
  /** The top-level `id`, when the start of the line has one. */
  readonly id?: string | number | null
  readonly method?: string
}

type Scalar = string | number | null

/**
 * The top-level `id` and `method` of a JSON object's text, read from its start
 * only (the rest was dropped): keys at depth one, scalar values.
 */
export const headFields = (text: string): { id?: Scalar; method?: string } => {
  const found: { id?: Scalar; method?: string } = {}
  let depth = 0
  let i = 0
  const readString = (): string | undefined => {
    const end = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(i, i + 4096))
    if (end === null) return undefined
    i += end[0].length
    try {
      return JSON.parse(end[0]) as string
    } catch {
      return undefined
    }
  }
  let expectKey = false
  while (i < text.length) {
    const c = text[i]!
    if (c === "{" || c === "[") {
      depth++
      expectKey = c === "{" && depth === 1
      i++
    } else if (c === "}" || c === "]") {
      depth--
      i++
    } else if (c === ",") {
      expectKey = depth === 1
      i++
    } else if (c === '"') {
      if (depth === 1 && expectKey) {
        const key = readString()
        if (key === undefined) return found
        const value = /^\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null)/.exec(text.slice(i, i + 4096))
        expectKey = false
        if (value === null) continue
        i += value[0].length
        const parsed = JSON.parse(value[1]!) as Scalar
        if (key === "id") found.id = parsed
        if (key === "method" && typeof parsed === "string") found.method = parsed
      } else if (readString() === undefined) {
        return found
      }
    } else {
      i++
    }
  }
  return found
}

const concat = (parts: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  const out = new Uint8Array(size)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.byteLength
  }
  return out
}

/** Whole lines of at most `limit` bytes pass; a longer one is dropped and reported once it ends. */
export const guard = (
  onOversized: (line: Oversized) => void,
  limit: number = LIMIT,
): TransformStream<Uint8Array, Uint8Array> => {
  let parts: Array<Uint8Array> = []
  let size = 0
  let dropping = false
  let head = new Uint8Array(0)
  const decoder = new TextDecoder()
  const report = () => {
    const fields = headFields(decoder.decode(head))
    onOversized({
      bytes: size,
      ...(fields.id === undefined ? {} : { id: fields.id }),
      ...(fields.method === undefined ? {} : { method: fields.method }),
    })
  }
  const take = (segment: Uint8Array) => {
    if (!dropping && size + segment.byteLength > limit) {
      dropping = true
      head = concat([...parts, segment], size + segment.byteLength).subarray(0, HEAD_BYTES).slice()
      parts = []
    }
    if (!dropping) parts.push(segment)
    size += segment.byteLength
  }
  const endLine = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (dropping) report()
    else if (size > 0) controller.enqueue(concat([...parts, new Uint8Array([10])], size + 1))
    else controller.enqueue(new Uint8Array([10]))
    parts = []
    size = 0
    dropping = false
    head = new Uint8Array(0)
  }
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let start = 0
      let newline = chunk.indexOf(10, start)
      while (newline >= 0) {
        take(chunk.subarray(start, newline))
        endLine(controller)
        start = newline + 1
        newline = chunk.indexOf(10, start)
      }
      if (start < chunk.byteLength) take(chunk.subarray(start).slice())
    },
    flush(controller) {
      if (dropping) report()
      else if (size > 0) controller.enqueue(concat(parts, size))
    },
  })
}
