/**
 * A scenario: the real `turnlog acp` binary driven by a real ACP client, with
 * the model scripted and the results written down. One directory each:
 *
 * - `input.json` — what the client does (`steps`), how permission requests
 *   are answered (`permissions`), an optional config file (`config`);
 * - `model.jsonl` — what the scripted model streams, one provider call per line;
 * - `seed.jsonl` — optional: a session log placed in the home before the run
 *   (`<workspace>` and `<home>` in it become the run's paths);
 * - `workspace/` — optional: files copied into the session's working directory;
 * - `stdout.expected.jsonl` — every frame the agent wrote, normalised;
 * - `session.expected.jsonl` — the durable log(s) afterwards, normalised;
 * - `stderr.expected.txt` — the agent's own notes on stderr (lines starting
 *   `turnlog:`: diagnostics, recovery, MCP notes), normalised.
 */
import { existsSync, readFileSync } from "node:fs"
import { basename, join, resolve } from "node:path"
import { Either, ParseResult, Schema } from "effect"

const Expect = Schema.Literal("result", "error")

export const Step = Schema.Union(
  Schema.Struct({ step: Schema.Literal("initialize") }),
  Schema.Struct({
    step: Schema.Literal("newSession"),
    /** Default: the run's workspace. `<workspace>` is replaced by it. */
    cwd: Schema.optionalWith(Schema.String, { exact: true }),
    mcpServers: Schema.optionalWith(Schema.Array(Schema.Unknown), { exact: true }),
    expect: Schema.optionalWith(Expect, { exact: true }),
  }),
  Schema.Struct({
    step: Schema.Literal("loadSession"),
    /** Default: the seeded session; `<session>` is the last session created or loaded. */
    sessionId: Schema.optionalWith(Schema.String, { exact: true }),
    expect: Schema.optionalWith(Expect, { exact: true }),
  }),
  Schema.Struct({
    step: Schema.Literal("prompt"),
    text: Schema.String,
    /** Default: the last session created or loaded. */
    sessionId: Schema.optionalWith(Schema.String, { exact: true }),
    /**
     * Sends `session/cancel` once this many chunks of the answer (agent message
     * or thought chunks) have arrived: what the model streamed, not the title or
     * command updates, which come sooner or later than the answer.
     */
    cancelAfter: Schema.optionalWith(Schema.Number, { exact: true }),
    expect: Schema.optionalWith(Expect, { exact: true }),
  }),
  /**
   * A JSON-RPC request by method name, for requests the typed client would not send;
   * `<session>` in `params` is the last session created or loaded, `<workspace>` the workspace.
   */
  Schema.Struct({
    step: Schema.Literal("request"),
    method: Schema.String,
    params: Schema.Unknown,
    expect: Schema.optionalWith(Expect, { exact: true }),
  }),
  /** A raw line written to the agent's stdin; waits for the answer frame with `id` (null for a parse error). */
  Schema.Struct({
    step: Schema.Literal("raw"),
    line: Schema.String,
    id: Schema.Union(Schema.Number, Schema.String, Schema.Null),
  }),
)
export type Step = typeof Step.Type

export const PermissionAnswer = Schema.Literal("allow", "reject", "allow-always", "reject-always", "cancelled")
export type PermissionAnswer = typeof PermissionAnswer.Type

export const Input = Schema.Struct({
  description: Schema.optionalWith(Schema.String, { exact: true }),
  steps: Schema.Array(Step),
  permissions: Schema.optionalWith(Schema.Array(PermissionAnswer), { exact: true }),
  config: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { exact: true }),
})
export type Input = typeof Input.Type

export interface Scenario {
  readonly name: string
  readonly dir: string
  readonly input: Input
  readonly modelFile: string
  readonly seed?: string
  readonly workspace?: string
  readonly expected: {
    readonly stdout?: ReadonlyArray<string>
    readonly session?: ReadonlyArray<string>
    readonly stderr?: ReadonlyArray<string>
  }
}

export const STDOUT_EXPECTED = "stdout.expected.jsonl"
export const SESSION_EXPECTED = "session.expected.jsonl"
export const STDERR_EXPECTED = "stderr.expected.txt"

const lines = (file: string): ReadonlyArray<string> | undefined => existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((l) => l !== "") : undefined

export const load = (path: string): Scenario => {
  const dir = resolve(path)
  const inputFile = join(dir, "input.json")
  const decoded = Schema.decodeUnknownEither(Schema.parseJson(Input))(readFileSync(inputFile, "utf8"))
  if (Either.isLeft(decoded)) {
    throw new Error(`${inputFile}: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`)
  }
  const modelFile = join(dir, "model.jsonl")
  if (!existsSync(modelFile)) throw new Error(`${dir}: model.jsonl is missing`)
  const seed = join(dir, "seed.jsonl")
  const workspace = join(dir, "workspace")
  const stdout = lines(join(dir, STDOUT_EXPECTED))
  const session = lines(join(dir, SESSION_EXPECTED))
  const stderr = lines(join(dir, STDERR_EXPECTED))
  return {
    name: basename(dir),
    dir,
    input: decoded.right,
    modelFile,
    ...(existsSync(seed) ? { seed } : {}),
    ...(existsSync(workspace) ? { workspace } : {}),
    expected: {
      ...(stdout === undefined ? {} : { stdout }),
      ...(session === undefined ? {} : { session }),
      ...(stderr === undefined ? {} : { stderr }),
    },
  }
}
