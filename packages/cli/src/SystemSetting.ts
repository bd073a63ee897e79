/**
 * The system prompt as the config file sets it: `system` or `systemFile`
 * replaces the default, `appendSystem` and `appendSystemFile` add to its end
 * (in that order); the user-level `AGENTS.md` is looked for in the home. The
 * files are read once, when the agent starts (relative to the config file); a
 * file that cannot be read is a usage error naming it and the field.
 */
import { dirname, resolve } from "node:path"
import { Either } from "effect"
import type { SystemPrompt } from "@turnlog/agent"
import { UsageError } from "./CliError.js"
import * as RegularFile from "./RegularFile.js"
import type { Settings } from "./Settings.js"

/** A prompt file is text a person wrote; far more is a mistake. */
export const MAX_PROMPT_FILE_BYTES = 256 * 1024

const fromFile = (settings: Settings, field: string, file: string): Either.Either<SystemPrompt.Part, UsageError> => {
  const absolute = resolve(settings.configFile === undefined ? process.cwd() : dirname(settings.configFile), file)
  return RegularFile.read(absolute, MAX_PROMPT_FILE_BYTES).pipe(
    Either.map((text) => ({ text: text.trim(), source: absolute })),
    Either.mapLeft((why) => new UsageError({ message: `config file ${settings.configFile ?? "(none)"}: ${field}: ${absolute} ${why}` })),
  )
}

export const options = (settings: Settings): Either.Either<SystemPrompt.Options, UsageError> =>
  Either.gen(function*() {
    const config = settings.config
    if (config.system !== undefined && config.systemFile !== undefined) {
      return yield* Either.left(
        new UsageError({ message: `config file ${settings.configFile}: system and systemFile both replace the system prompt: keep one` }),
      )
    }
    const system = config.systemFile !== undefined
      ? yield* fromFile(settings, "systemFile", config.systemFile)
      : config.system !== undefined
      ? { text: config.system, source: "config:system" }
      : undefined
    const append: Array<SystemPrompt.Part> = []
    if (config.appendSystem !== undefined) append.push({ text: config.appendSystem, source: "config:appendSystem" })
    if (config.appendSystemFile !== undefined) append.push(yield* fromFile(settings, "appendSystemFile", config.appendSystemFile))
    return { home: settings.home, append, ...(system === undefined ? {} : { system }) }
  })
