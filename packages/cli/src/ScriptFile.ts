/**
 * Reads the scripted model's file (`TURNLOG_SCRIPTED_MODEL=<file>` or the
 * config's `scriptedModel`); the format and its parser are `ScriptFile` of
 * `@turnlog/llm`. A refusal names the file and the line.
 */
import { Either } from "effect"
import { type Scripted, ScriptFile } from "@turnlog/llm"
import { UsageError } from "./CliError.js"
import * as RegularFile from "./RegularFile.js"

/** Scripts are test and demo material: far below this. */
const MAX_SCRIPT_BYTES = 256 * 1024 * 1024

export const parse = (file: string, text: string): Either.Either<ReadonlyArray<Scripted.ScriptedCall>, UsageError> =>
  Either.mapLeft(
    ScriptFile.parse(text),
    (e) => new UsageError({ message: `scripted model ${file}:${e.line}: ${e.reason}` }),
  )

export const load = (file: string): Either.Either<ReadonlyArray<Scripted.ScriptedCall>, UsageError> => {
  const text = RegularFile.read(file, MAX_SCRIPT_BYTES)
  if (Either.isLeft(text)) return Either.left(new UsageError({ message: `scripted model ${file} ${text.left}` }))
  return parse(file, text.right)
}
