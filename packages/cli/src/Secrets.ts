/**
 * The credentials this process holds, and the seams that keep them in.
 *
 * A credential is the value of a variable a provider's key is read from: the
 * built-in providers' (`CredentialEnv`), the AI SDK packages' defaults, and each
 * custom provider's `apiKeyEnv`;
 * and the PostgreSQL store's URL (`TURNLOG_DATABASE_URL` or the config's
 * `database.url`), with the password inside it.
 * Two rules follow from them:
 *
 * - Commands the agent runs get this process's environment without those
 *   variables, unless the config's `passEnv` names them: an `env` in a tool
 *   call must not print the key into the session.
 * - No credential value leaves the process. Redaction (`Redaction` in
 *   `@turnlog/llm`) is applied at three seams, each the one place a kind of
 *   output passes, so that no caller has to remember it:
 *   1. the model adapter (`Redacting.layer`): everything sent to a provider
 *      and every chunk it streams back, before the loop logs or shows it —
 *      the only place a key split across deltas can be caught;
 *   2. the session store's `append` (`store` below): nothing unredacted is
 *      written to a log, whatever produced it — a tool's result, the user's
 *      prompt, a failure message;
 *   3. this process's stdout and stderr (`guardOutput` below): every byte
 *      shown on the terminal or sent to an ACP client, including what `show`
 *      or `session/load` read from a log written before redaction existed.
 *   The log, the provider and the screen are each covered whatever path a
 *   value took to them; the in-memory history may still hold a value a tool
 *   printed, and it only ever leaves through these seams.
 */
import type { Writable } from "node:stream"
import { Redaction } from "@turnlog/llm"
import { CREDENTIALS } from "@turnlog/llm-pi-ai/CredentialEnv"
import type { SessionStore } from "@turnlog/store"
import type { Environment, Settings } from "./Settings.js"

export interface Secrets {
  /** The variables that hold a credential, built-in and configured. */
  readonly names: ReadonlyArray<string>
  readonly redactor: Redaction.Redactor
  /** The environment commands run in. */
  readonly commandEnv: Readonly<Record<string, string>>
}

/** Each custom provider's `apiKeyEnv` (the providers themselves are checked by the pi-ai layer). */
const configuredNames = (providers: unknown): ReadonlyArray<string> => {
  if (typeof providers !== "object" || providers === null) return []
  return Object.values(providers).flatMap((provider: unknown) =>
    typeof provider === "object" && provider !== null && "apiKeyEnv" in provider &&
      typeof provider.apiKeyEnv === "string" && provider.apiKeyEnv !== ""
      ? [provider.apiKeyEnv]
      : []
  )
}

/**
 * The keys the AI SDK adapter reads by default beyond pi-ai's own
 * (`@ai-sdk/google`'s variable; Anthropic's and OpenAI's are pi-ai's too).
 */
const AI_SDK_CREDENTIALS: ReadonlyArray<string> = ["GOOGLE_GENERATIVE_AI_API_KEY"]

/** The variable that may carry the PostgreSQL store's URL, password included. */
const DATABASE_URL = "TURNLOG_DATABASE_URL"

/** A database URL is a credential as a whole, and so is the password inside it (said alone in errors). */
const databaseSecrets = (urls: ReadonlyArray<string | undefined>): ReadonlyArray<string> =>
  urls.flatMap((url) => {
    if (url === undefined || url === "") return []
    try {
      const password = decodeURIComponent(new URL(url).password)
      return password === "" ? [url] : [url, password]
    } catch {
      return [url]
    }
  })

export const of = (settings: Settings, env: Environment = process.env): Secrets => {
  const names = [...new Set([...CREDENTIALS, ...AI_SDK_CREDENTIALS, DATABASE_URL, ...configuredNames(settings.config.providers)])]
  const passed = new Set(settings.config.passEnv ?? [])
  const commandEnv: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined) commandEnv[name] = value
  }
  for (const name of names) {
    if (!passed.has(name)) delete commandEnv[name]
  }
  const values = [...names.map((name) => env[name]), ...databaseSecrets([env[DATABASE_URL], settings.config.database?.url])]
  return { names, redactor: Redaction.make(values), commandEnv }
}

/** A store whose `append` (and `create`'s title) never writes a credential value. */
export const store = (redactor: Redaction.Redactor, inner: SessionStore.Service): SessionStore.Service =>
  Redaction.isEmpty(redactor) ? inner : {
    ...inner,
    create: (options) => inner.create(options.title === undefined ? options : { ...options, title: Redaction.text(redactor, options.title) }),
    append: (id, events) => inner.append(id, events.map((event) => Redaction.json(redactor, event))),
  }

const guarded = new WeakSet<Writable>()

/**
 * Redacts every write to `stream` (this process's stdout and stderr). Each
 * write is redacted whole: text streamed in deltas was already redacted
 * across them at the model seam, and everything else is written in one piece.
 * Bytes are matched as bytes, so a write that is not text passes unchanged.
 */
export const guardStream = (stream: Writable, redactor: Redaction.Redactor): void => {
  if (guarded.has(stream)) return
  guarded.add(stream)
  // Latin-1 maps each byte to one character: the secrets' UTF-8 bytes, matched in a write's bytes.
  const bytes = Redaction.make(redactor.secrets.map((s) => Buffer.from(s, "utf8").toString("latin1")))
  const write = stream.write.bind(stream) as (chunk: unknown, encoding?: unknown, callback?: unknown) => boolean
  stream.write = ((chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
    let safe = chunk
    if (typeof chunk === "string") {
      if (encoding === undefined || typeof encoding === "function" || encoding === "utf8" || encoding === "utf-8") {
        safe = Redaction.text(redactor, chunk)
      }
    } else if (chunk instanceof Uint8Array) {
      const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("latin1")
      if (Redaction.contains(bytes, text)) safe = Buffer.from(Redaction.text(bytes, text), "latin1")
    }
    return write(safe, encoding, callback)
  }) as typeof stream.write
}

/** From now on, nothing written to the command's stdout or stderr (by default this process's) carries a credential value. */
export const guardOutput = (
  redactor: Redaction.Redactor,
  terminal: { readonly stdout: Writable; readonly stderr: Writable } = { stdout: process.stdout, stderr: process.stderr },
): void => {
  if (Redaction.isEmpty(redactor)) return
  guardStream(terminal.stdout, redactor)
  guardStream(terminal.stderr, redactor)
}
