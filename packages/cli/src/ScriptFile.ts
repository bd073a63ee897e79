/**
 * A scripted model written down: a JSONL file, one provider call per line,
 * each line the chunks that call streams — either a JSON array of
 * `StreamChunk`s or `{"chunks": [...], "delayMs"?: n, "stall"?: true}`.
 * `delayMs` pauses before each chunk; `stall` keeps the call open after its
 * chunks until it is cancelled (to cancel mid-stream without racing a clock).
 * Selected with `TURNLOG_SCRIPTED_MODEL=<file>` or the config's `scriptedModel`.
 */
import { readFileSync } from "node:fs"
import { Either, ParseResult, Schema } from "effect"
import { StreamChunk } from "@turnlog/protocol"
import { UsageError } from "./CliError.js"

export const ScriptCall = Schema.Struct({
  chunks: Schema.Array(StreamChunk),
  delayMs: Schema.optionalWith(Schema.Number.pipe(Schema.nonNegative()), { exact: true }),
  stall: Schema.optionalWith(Schema.Boolean, { exact: true }),
})
export type ScriptCall = typeof ScriptCall.Type

const Line = Schema.Union(
  Schema.Array(StreamChunk).pipe(
    Schema.transform(ScriptCall, {
      strict: true,
      decode: (chunks) => ({ chunks }),
      encode: (call) => call.chunks,
    }),
  ),
  ScriptCall,
)

export const parse = (file: string, text: string): Either.Either<ReadonlyArray<ScriptCall>, UsageError> => {
  const calls: Array<ScriptCall> = []
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line === "") continue
    const decoded = Schema.decodeUnknownEither(Schema.parseJson(Line))(line)
    if (Either.isLeft(decoded)) {
      return Either.left(
        new UsageError({
          message: `scripted model ${file}:${i + 1}: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`,
        }),
      )
    }
    calls.push(decoded.right)
  }
  return Either.right(calls)
}

export const load = (file: string): Either.Either<ReadonlyArray<ScriptCall>, UsageError> => {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (e) {
    return Either.left(
      new UsageError({ message: `scripted model ${file} cannot be read: ${e instanceof Error ? e.message : String(e)}` }),
    )
  }
  return parse(file, text)
}
