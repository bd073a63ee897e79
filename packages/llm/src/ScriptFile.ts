/**
 * The scripted model written down: JSONL, one provider call per line, each
 * line the chunks that call streams — either a JSON array of `StreamChunk`s
 * or `{"chunks": [...], "delayMs"?: n, "stall"?: true}` (see
 * `Scripted.ScriptedCall`). A line that is not a call is refused naming the
 * line and, in a sentence, what is wrong where — not the whole schema of a
 * stream chunk.
 */
import { Data, Either, ParseResult, Schema } from "effect"
import { StreamChunk } from "@turnlog/protocol"
import { ScriptedCall } from "./Scripted.js"

/** Why line `line` (from 1) of a script is not a call. */
export class ScriptLineError extends Data.TaggedError("ScriptLineError")<{
  readonly line: number
  readonly reason: string
}> {}

const CallOptions = Schema.Struct({
  delayMs: ScriptedCall.fields.delayMs,
  stall: ScriptedCall.fields.stall,
})

const chunkSchemas = new Map<unknown, Schema.Schema<StreamChunk, unknown>>(
  StreamChunk.members.map((member) => [member.fields.type.literals[0], member as Schema.Schema<StreamChunk, unknown>]),
)
const CHUNK_TYPES = [...chunkSchemas.keys()].join(", ")

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** A value as a reader would want it quoted in one line: short. */
const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

/** The first few issues of a decode, each `path: message`, on one line. */
const issues = (prefix: string, error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error).slice(0, 3)
    .map((issue) => `${[prefix, ...issue.path.map(String)].filter((p) => p !== "").join(".")}: ${issue.message}`)
    .join("; ")

/** Chunk `k`, decoded as the chunk its `type` names, or what is wrong with it. */
const decodeChunk = (value: unknown, k: number): Either.Either<StreamChunk, string> => {
  const schema = isRecord(value) ? chunkSchemas.get(value["type"]) : undefined
  if (schema === undefined) {
    return Either.left(`chunk ${k}: expected a stream chunk with a type (${CHUNK_TYPES}), got ${shown(value)}`)
  }
  return Either.mapLeft(Schema.decodeUnknownEither(schema)(value), (error) => issues(`chunk ${k}`, error))
}

/** One line: the call it scripts, or why it is not one, in a sentence or two. */
const parseLine = (line: string): Either.Either<ScriptedCall, string> => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (e) {
    return Either.left(`not JSON (${e instanceof Error ? e.message : String(e)})`)
  }
  let chunks: unknown
  let options: { readonly delayMs?: number; readonly stall?: boolean } = {}
  if (Array.isArray(value)) {
    chunks = value
  } else if (isRecord(value) && Array.isArray(value["chunks"])) {
    chunks = value["chunks"]
    const decoded = Schema.decodeUnknownEither(CallOptions)(value)
    if (Either.isLeft(decoded)) return Either.left(issues("", decoded.left))
    options = decoded.right
  } else {
    return Either.left(`expected an array of stream chunks or {"chunks": [...], "delayMs"?: n, "stall"?: true}, got ${shown(value)}`)
  }
  const list = chunks as ReadonlyArray<unknown>
  const decoded: Array<StreamChunk> = []
  for (let k = 0; k < list.length; k++) {
    const chunk = decodeChunk(list[k], k)
    if (Either.isLeft(chunk)) return Either.left(chunk.left)
    decoded.push(chunk.right)
  }
  return Either.right({ chunks: decoded, ...options })
}

/** Every call of a script's text, blank lines skipped, or the first line that is not one. */
export const parse = (text: string): Either.Either<ReadonlyArray<ScriptedCall>, ScriptLineError> => {
  const calls: Array<ScriptedCall> = []
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line === "") continue
    const call = parseLine(line)
    if (Either.isLeft(call)) return Either.left(new ScriptLineError({ line: i + 1, reason: call.left }))
    calls.push(call.right)
  }
  return Either.right(calls)
}
