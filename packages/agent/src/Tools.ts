/**
 * The tool registry. A tool is described by an `effect/Schema` for its
 * arguments — the model is sent its JSON Schema — and runs as an Effect.
 * Running is split in two so that the loop can put the permission question
 * between them: `prepare` decodes the raw argument JSON and checks what can be
 * checked without side effects (a path outside the session's cwd), and says
 * what permission the call needs; only then is the prepared `run` executed.
 * A tool also says how a call shows to a person (`display`): its kind, a title
 * made from its arguments, and the paths it touches — the same for the editor's
 * tool call, its permission question and the terminal.
 */
import { Context, Duration, Effect, Either, Layer, ParseResult, Schema } from "effect"
import type { SessionId } from "@turnlog/protocol"
import type { LlmAdapter } from "@turnlog/llm"
import { parametersOf } from "./internal/jsonSchema.js"
import type { ToolHost } from "./ToolHost.js"
import { InvalidArguments, type ToolError, ToolTimeout, UnknownTool } from "./ToolError.js"

/** Where a call runs. */
export interface ToolContext {
  readonly sessionId: SessionId
  readonly callId: string
  /** The session's working directory; tools stay inside it. */
  readonly cwd: string
  /** The session's client, when it reads, writes or runs for the tools (an editor); absent, the disk and child processes. */
  readonly host?: ToolHost
}

/** What a call needs the user's consent for; reads need none. */
export interface PermissionNeed {
  readonly kind: "write" | "command" | "mode"
  /** One line the user is asked about, e.g. `Write src/a.ts`: the call's display title. */
  readonly title: string
}

/** What a call does, for icons and grouping (the Agent Client Protocol's tool kinds). */
export type ToolKind =
  | "read"
  | "edit"
  | "delete"
  | "move"
  | "search"
  | "execute"
  | "think"
  | "fetch"
  | "switch_mode"
  | "other"

/** How one call shows to a person. */
export interface Display {
  readonly kind: ToolKind
  /** One line, e.g. `Write src/a.ts`; the tool's name when the arguments do not decode. */
  readonly title: string
  /** The paths the call acts on, as the model gave them (relative to the session's cwd or absolute). */
  readonly paths: ReadonlyArray<string>
  /** The arguments parsed from their JSON, or the raw string when it is not JSON. */
  readonly input: unknown
  /** The text changes the call asks for, when it writes files: what an editor shows as a diff. */
  readonly changes?: ReadonlyArray<Change>
}

/**
 * One change to a file's text as the call's arguments give it: `oldText` is
 * the passage replaced (absent: the whole file is written), `newText` what
 * takes its place. Derived from the arguments alone, so a call replayed from
 * the log shows as it showed live.
 */
export interface Change {
  /** As the model gave it (relative to the session's cwd or absolute). */
  readonly path: string
  readonly oldText?: string
  readonly newText: string
}

/** How a tool's calls show, from their decoded arguments. */
export interface DisplaySpec<A> {
  readonly kind: ToolKind
  readonly title: (args: A) => string
  readonly paths?: (args: A) => ReadonlyArray<string>
  readonly changes?: (args: A) => ReadonlyArray<Change>
}

/** A call whose arguments were decoded and checked, ready to ask and run. */
export interface PreparedCall {
  /** The decoded arguments, shown to whoever decides the permission. */
  readonly input: unknown
  readonly permission?: PermissionNeed
  /** The output the model sees. */
  readonly run: Effect.Effect<string, ToolError>
}

/** How a tool is written: typed arguments in, a prepared call out. */
export interface Definition<A, I> {
  readonly name: string
  readonly description: string
  readonly parameters: Schema.Schema<A, I>
  /** A limit on `run`; tools that need to clean up on their own (commands) enforce theirs inside. */
  readonly timeoutMs?: number
  readonly display: DisplaySpec<A>
  /** The permission asked is titled with the call's display title. */
  readonly prepare: (
    args: A,
    context: ToolContext,
  ) => Effect.Effect<
    {
      readonly input?: unknown
      readonly permission?: { readonly kind: PermissionNeed["kind"] }
      readonly run: PreparedCall["run"]
    },
    ToolError
  >
}

/** A tool with its argument type erased, as the registry holds it. */
export interface Tool {
  readonly spec: LlmAdapter.ToolSpec
  /** Where a tool that is not built in comes from (`MCP server "docs"`): named when the tools outgrow the window. */
  readonly origin?: string
  /** How a call with these raw arguments shows; never fails. */
  readonly display: (argumentsJson: string) => Display
  readonly prepare: (argumentsJson: string, context: ToolContext) => Effect.Effect<PreparedCall, ToolError>
}

/**
 * The raw argument string parsed on its own first, so that a malformed string
 * is answered with the JSON parser's own words. A blank string means no
 * arguments: some providers send it for tools without parameters.
 */
const parseArguments = (tool: string, json: string): Either.Either<unknown, InvalidArguments> => {
  if (json.trim() === "") return Either.right({})
  try {
    return Either.right(JSON.parse(json))
  } catch (error) {
    return Either.left(
      new InvalidArguments({
        tool,
        detail: `the arguments are not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      }),
    )
  }
}

/** The arguments as the person deciding sees them: parsed when they are JSON, else the raw string. */
export const inputOf = (json: string): unknown => Either.getOrElse(parseArguments("", json), () => json)

/** How a call of a tool the registry does not have shows: by its name. */
export const unknownDisplay = (name: string, argumentsJson: string): Display => ({
  kind: "other",
  title: name,
  paths: [],
  input: inputOf(argumentsJson),
})

export const define = <A, I>(definition: Definition<A, I>): Tool => {
  const decode = Schema.decodeUnknownEither(definition.parameters)
  const limit = definition.timeoutMs
  const shown = (args: A, input: unknown): Display => ({
    kind: definition.display.kind,
    title: definition.display.title(args),
    paths: definition.display.paths?.(args) ?? [],
    input,
    ...(definition.display.changes === undefined ? {} : { changes: definition.display.changes(args) }),
  })
  return {
    spec: {
      name: definition.name,
      description: definition.description,
      parameters: parametersOf(definition.parameters as Schema.Schema.AnyNoContext),
    },
    display: (argumentsJson) => {
      const input = inputOf(argumentsJson)
      const args = Either.isRight(parseArguments("", argumentsJson)) ? decode(input) : undefined
      return args !== undefined && Either.isRight(args)
        ? shown(args.right, input)
        : { ...unknownDisplay(definition.name, argumentsJson), kind: definition.display.kind }
    },
    prepare: (argumentsJson, context) =>
      Effect.gen(function*() {
        const raw = yield* parseArguments(definition.name, argumentsJson)
        const args = yield* Either.mapLeft(
          decode(raw),
          (e) => new InvalidArguments({ tool: definition.name, detail: ParseResult.TreeFormatter.formatErrorSync(e) }),
        )
        const prepared = yield* definition.prepare(args, context)
        const run = limit === undefined ? prepared.run : prepared.run.pipe(
          Effect.timeoutFail({
            duration: Duration.millis(limit),
            onTimeout: () => new ToolTimeout({ tool: definition.name, timeoutMs: limit }),
          }),
        )
        const permission = prepared.permission === undefined
          ? {}
          : { permission: { kind: prepared.permission.kind, title: definition.display.title(args) } }
        return { input: prepared.input ?? raw, ...permission, run }
      }),
  }
}

export interface Service {
  /** What the model is told about the tools, in registration order. */
  readonly specs: ReadonlyArray<LlmAdapter.ToolSpec>
  /** Decodes and checks one call; `UnknownTool` for a name the registry lacks. */
  readonly prepare: (
    call: { readonly name: string; readonly arguments: string },
    context: ToolContext,
  ) => Effect.Effect<PreparedCall, ToolError>
  /** How a call shows; a tool the registry lacks shows by its name, kind `other`. */
  readonly display: (call: { readonly name: string; readonly arguments: string }) => Display
  /** Each tool's `origin`, by name, for the tools that have one. */
  readonly origins?: ReadonlyMap<string, string>
}

const originsOf = (tools: ReadonlyArray<Tool>): Map<string, string> =>
  new Map(tools.flatMap((t) => (t.origin === undefined ? [] : [[t.spec.name, t.origin] as const])))

export class Tools extends Context.Tag("@turnlog/agent/Tools")<Tools, Service>() {}

export const make = (tools: ReadonlyArray<Tool>): Service => {
  const byName = new Map<string, Tool>()
  for (const tool of tools) {
    if (byName.has(tool.spec.name)) throw new Error(`two tools are named "${tool.spec.name}"`)
    byName.set(tool.spec.name, tool)
  }
  return {
    specs: tools.map((t) => t.spec),
    prepare: (call, context) => {
      const tool = byName.get(call.name)
      return tool === undefined ? Effect.fail(new UnknownTool({ name: call.name })) : tool.prepare(call.arguments, context)
    },
    display: (call) => byName.get(call.name)?.display(call.arguments) ?? unknownDisplay(call.name, call.arguments),
    origins: originsOf(tools),
  }
}

/**
 * `base` with `extra` after it: the tools one session has beyond everyone's
 * (an editor's MCP servers). A name in both is a defect, as in `make`.
 */
export const extend = (base: Service, extra: ReadonlyArray<Tool>): Service => {
  if (extra.length === 0) return base
  const own = make(extra)
  const clash = own.specs.find((spec) => base.specs.some((b) => b.name === spec.name))
  if (clash !== undefined) throw new Error(`two tools are named "${clash.name}"`)
  const names = new Set(own.specs.map((spec) => spec.name))
  return {
    specs: [...base.specs, ...own.specs],
    prepare: (call, context) => (names.has(call.name) ? own.prepare(call, context) : base.prepare(call, context)),
    display: (call) => (names.has(call.name) ? own.display(call) : base.display(call)),
    origins: new Map([...(base.origins ?? []), ...originsOf(extra)]),
  }
}

export const layer = (tools: ReadonlyArray<Tool>): Layer.Layer<Tools> => Layer.sync(Tools, () => make(tools))
