/**
 * Where turnlog keeps its sessions and what the config file says. Resolved
 * once, from the global options, then the environment, then defaults:
 * home `--home` | `TURNLOG_HOME` | `~/.turnlog`; config `--config` |
 * `TURNLOG_CONFIG` | `$TURNLOG_HOME/config.json` when it exists; store `--store` |
 * the config's `store` | jsonl; the PostgreSQL store's database
 * `TURNLOG_DATABASE_URL` | the config's `database.url`. A config that
 * cannot be used is a usage error naming the file and the field. What they
 * are resolved from — the working directory, the environment — and the
 * command's stdin are the `Invocation` service.
 */
import { existsSync, fstatSync } from "node:fs"
import { dirname, resolve } from "node:path"
import type { Readable } from "node:stream"
import { Context, Effect, Either, Option, ParseResult, Schema } from "effect"
import { ServerConfig } from "@turnlog/mcp"
import { Compaction } from "@turnlog/history"
import { parseRoute } from "@turnlog/protocol"
import { UsageError } from "./CliError.js"
import { clip, clipQuoted } from "./Clip.js"
import * as RegularFile from "./RegularFile.js"
import * as ConfigLocation from "./ConfigLocation.js"
import * as EnvironmentBlock from "./EnvironmentBlock.js"

/** A config is a few KiB; far more is a mistake (`--config /dev/zero`, a log named by accident). */
export const MAX_CONFIG_BYTES = 1024 * 1024

export type StoreKind = "jsonl" | "sqlite" | "postgres"
export const STORE_KINDS: ReadonlyArray<StoreKind> = ["jsonl", "sqlite", "postgres"]
export type PermissionMode = "ask" | "allow" | "deny"

export const ROUTE_HINT = `"<provider>/<model>", e.g. "anthropic/claude-sonnet-4-5"`

const Route = Schema.String.pipe(
  Schema.filter((s) => parseRoute(s) !== undefined || `expected ${ROUTE_HINT}`),
)
const PositiveInt = Schema.Number.pipe(
  Schema.int({ message: () => "expected a positive integer" }),
  Schema.positive({ message: () => "expected a positive integer" }),
)

const Permissions = Schema.String.pipe(
  Schema.filter((s): s is PermissionMode => s === "ask" || s === "allow" || s === "deny", {
    message: () => 'expected "ask", "allow" or "deny"',
  }),
)

const Store = Schema.String.pipe(
  Schema.filter((s): s is StoreKind => (STORE_KINDS as ReadonlyArray<string>).includes(s), {
    message: () => 'expected "jsonl", "sqlite" or "postgres"',
  }),
)

const EnvName = Schema.String.annotations({ message: () => "expected an environment variable name" }).pipe(
  Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: () => "expected an environment variable name" }),
)

export const ConfigFile = Schema.Struct({
  model: Schema.optionalWith(Route, { exact: true }),
  maxTokens: Schema.optionalWith(PositiveInt, { exact: true }),
  /** How long a provider stream may send no chunk before the request is abandoned and retried (default 600). */
  streamIdleTimeoutSeconds: Schema.optionalWith(PositiveInt, { exact: true }),
  /** How long `acp` keeps a session no prompt uses before it lets it go (default 120). */
  idleReleaseSeconds: Schema.optionalWith(PositiveInt, { exact: true }),
  /** Custom pi-ai providers; checked by the pi-ai layer's own schema. */
  providers: Schema.optionalWith(Schema.Unknown, { exact: true }),
  permissions: Schema.optionalWith(Permissions, { exact: true }),
  /** A scripted model file (JSONL, one call per line) to run instead of a provider; relative to the config file. */
  scriptedModel: Schema.optionalWith(Schema.String, { exact: true }),
  /** The session store when `--store` is not given. */
  store: Schema.optionalWith(Store, { exact: true }),
  /** The PostgreSQL store's database, `postgres://…` (TURNLOG_DATABASE_URL wins). */
  database: Schema.optionalWith(Schema.Struct({ url: Schema.String }), { exact: true }),
  /**
   * `{ enabled, reserveTokens, keepRecentTokens, toolResultShare }`: checked
   * here field by field (`Compaction.settingsFor`), and against each model's
   * context window before its requests.
   */
  compaction: Schema.optionalWith(Schema.Unknown, { exact: true }),
  /** Credential variables `run_command` still passes to commands (by default it passes none; see `Secrets`). */
  passEnv: Schema.optionalWith(
    Schema.Array(EnvName).annotations({ message: () => "expected a list of environment variable names" }),
    { exact: true },
  ),
  /** Replaces the default system prompt (see `SystemSetting`). */
  system: Schema.optionalWith(Schema.String, { exact: true }),
  /** Added at the end of the system prompt. */
  appendSystem: Schema.optionalWith(Schema.String, { exact: true }),
  /** A file whose text replaces the default system prompt; relative to the config file. */
  systemFile: Schema.optionalWith(Schema.String, { exact: true }),
  /** A file whose text is added at the end of the system prompt; relative to the config file. */
  appendSystemFile: Schema.optionalWith(Schema.String, { exact: true }),
  /** MCP servers whose tools `run` sessions get, in the Agent Client Protocol's shape. */
  mcpServers: Schema.optionalWith(ServerConfig.Servers, { exact: true }),
})
export type ConfigFile = typeof ConfigFile.Type

const ANY_WINDOW = 2 ** 40

export interface Settings {
  readonly home: string
  readonly store: StoreKind
  /** The PostgreSQL store's database URL (`store: "postgres"` only). */
  readonly databaseUrl?: string
  /** The config file read, if any. */
  readonly configFile?: string
  readonly config: ConfigFile
  /** An absolute scripted-model file from `TURNLOG_SCRIPTED_MODEL` or the config. */
  readonly scriptedModel?: string
  /** `TURNLOG_SANDBOX`: whether commands run in a sandbox (default `auto`, see `Builtins.Options`). */
  readonly sandbox?: SandboxMode
}

export const SANDBOX_MODES = ["auto", "off", "require"] as const
export type SandboxMode = typeof SANDBOX_MODES[number]

export type Environment = ConfigLocation.Environment

/** Where a command was started: its directory, environment and standard input. */
export interface InvocationShape {
  readonly cwd: string
  /** Read by everything that asks the environment; `--no-color` sets `NO_COLOR` in it. */
  readonly env: Environment
  readonly stdin: Readable & { readonly isTTY?: boolean }
  /** Whether stdin is a pipe or a file (input sent to the command, see `PromptInput`). */
  readonly stdinPiped: () => boolean
  /** Clears the values of `names` where other processes could read them (see `EnvironmentBlock`). */
  readonly scrub: (names: ReadonlyArray<string>) => void
}

/** Whether data is piped to this process's stdin (a pipe or a file). */
export const isPiped = (): boolean => {
  try {
    const stat = fstatSync(0)
    return stat.isFIFO() || stat.isFile()
  } catch {
    return false
  }
}

/** The invocation: by default this process's; a command run in-process (tests) is given its own. */
export class Invocation extends Context.Reference<Invocation>()("@turnlog/cli/Settings/Invocation", {
  defaultValue: (): InvocationShape => ({
    get cwd() {
      return process.cwd()
    },
    env: process.env,
    get stdin() {
      return process.stdin
    },
    stdinPiped: isPiped,
    scrub: (names) => void EnvironmentBlock.scrub(names),
  }),
}) {}

const formatIssue = (issue: ParseResult.ArrayFormatterIssue): string =>
  clipQuoted(issue.path.length === 0 ? issue.message : `${issue.path.map((p) => clip(String(p))).join(".")}: ${issue.message}`)

/**
 * What the pi-ai layer would only find at the first request: a provider's
 * baseUrl that is no http(s) URL. And one carrying a user name or password,
 * refused without echoing it: a URL is printed and logged as it is (in
 * failures, in `request/start`), a credential must not be.
 */
const badBaseUrls = (providers: unknown): Array<string> => {
  if (typeof providers !== "object" || providers === null) return []
  const issues: Array<string> = []
  for (const [name, provider] of Object.entries(providers)) {
    if (typeof provider !== "object" || provider === null || !("baseUrl" in provider)) continue
    const url = provider.baseUrl
    if (typeof url === "string" && hasCredentials(url)) {
      issues.push(`providers.${clip(name)}.baseUrl: ${CREDENTIALS_IN_URL}`)
      continue
    }
    if (typeof url === "string" && isHttpUrl(url)) continue
    issues.push(clipQuoted(
      `providers.${clip(name)}.baseUrl: expected an http:// or https:// URL, got ${JSON.stringify(url) ?? String(url)}`,
    ))
  }
  return issues
}

const CREDENTIALS_IN_URL = "a URL with a user name or password is refused; put the key in the environment variable that apiKeyEnv names"

const hasCredentials = (text: string): boolean => {
  try {
    const url = new URL(text)
    return url.username !== "" || url.password !== ""
  } catch {
    return false
  }
}

const isHttpUrl = (text: string): boolean => {
  try {
    const url = new URL(text)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

/** The config file's content, or a usage error naming the file and each bad field. */
export const decodeConfig = (file: string, text: string): Either.Either<ConfigFile, UsageError> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    return Either.left(
      new UsageError({ message: `config file ${file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}` }),
    )
  }
  const keys =
    "(keys: model, maxTokens, streamIdleTimeoutSeconds, idleReleaseSeconds, providers, permissions, scriptedModel, store, database, passEnv, mcpServers, compaction, system, appendSystem, systemFile, appendSystemFile)"
  return Schema.decodeUnknownEither(ConfigFile, { errors: "all", onExcessProperty: "error" })(json).pipe(
    Either.mapLeft((error) =>
      new UsageError({
        message: `config file ${file}: ${ParseResult.ArrayFormatter.formatErrorSync(error).map(formatIssue).join("; ")} ${keys}`,
      })
    ),
    Either.flatMap((config) => {
      // The fields alone: a window this large holds any setting, the model's own is checked per request.
      const compaction = Compaction.settingsFor(config.compaction, ANY_WINDOW)
      if (Either.isLeft(compaction)) {
        return Either.left(new UsageError({ message: `config file ${file}: ${clipQuoted(compaction.left.message)}` }))
      }
      const urls = badBaseUrls(config.providers)
      return urls.length === 0
        ? Either.right(config)
        : Either.left(new UsageError({ message: `config file ${file}: ${urls.join("; ")}` }))
    }),
  )
}

export interface Flags {
  readonly home: Option.Option<string>
  readonly config: Option.Option<string>
  readonly store: Option.Option<StoreKind>
}

export const resolveSettings = (
  flags: Flags,
  env: Environment = process.env,
  cwd: string = process.cwd(),
): Effect.Effect<Settings, UsageError> =>
  Effect.gen(function*() {
    const { configFile, home } = ConfigLocation.locate({ home: Option.getOrUndefined(flags.home), config: Option.getOrUndefined(flags.config) }, env, cwd)
    let config: ConfigFile = {}
    if (configFile !== undefined) {
      if (!existsSync(configFile)) {
        const from = Option.isSome(flags.config) ? "--config" : "TURNLOG_CONFIG"
        return yield* new UsageError({ message: `config file ${configFile} (from ${from}) does not exist` })
      }
      const text = yield* Either.mapLeft(
        RegularFile.read(configFile, MAX_CONFIG_BYTES),
        (why) => new UsageError({ message: `config file ${configFile} ${why}` }),
      )
      config = yield* decodeConfig(configFile, text)
    }
    const scriptedFromEnv = ConfigLocation.nonEmpty(env.TURNLOG_SCRIPTED_MODEL)
    const scriptedModel = scriptedFromEnv !== undefined
      ? resolve(cwd, ConfigLocation.expandHome(scriptedFromEnv))
      : config.scriptedModel !== undefined && configFile !== undefined
      ? resolve(dirname(configFile), ConfigLocation.expandHome(config.scriptedModel))
      : undefined
    const store = Option.getOrUndefined(flags.store) ?? config.store ?? "jsonl"
    const databaseUrl = store !== "postgres" ? undefined : ConfigLocation.nonEmpty(env.TURNLOG_DATABASE_URL) ?? config.database?.url
    if (store === "postgres" && databaseUrl === undefined) {
      return yield* new UsageError({
        message: "the postgres store needs a database: set TURNLOG_DATABASE_URL or database.url in the config (postgres://user@host:5432/database)",
      })
    }
    const sandbox = ConfigLocation.nonEmpty(env.TURNLOG_SANDBOX)
    if (sandbox !== undefined && !(SANDBOX_MODES as ReadonlyArray<string>).includes(sandbox)) {
      return yield* new UsageError({ message: `TURNLOG_SANDBOX must be auto, off or require, not ${clipQuoted(JSON.stringify(sandbox))}` })
    }
    return {
      home,
      store,
      ...(sandbox === undefined ? {} : { sandbox: sandbox as SandboxMode }),
      ...(databaseUrl === undefined ? {} : { databaseUrl }),
      config,
      ...(configFile === undefined ? {} : { configFile }),
      ...(scriptedModel === undefined ? {} : { scriptedModel }),
    }
  })
