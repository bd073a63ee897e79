/**
 * The tool registry. A tool is described by an `effect/Schema` for its
 * arguments — the model is sent its JSON Schema — and runs as an Effect.
 * Running is split in two so that the loop can put the permission question
 * between them: `prepare` decodes the raw argument JSON and checks what can be
 * checked without side effects (a path outside the session's cwd), and says
 * what permission the call needs; only then is the prepared `run` executed.
 */
import { Context, Duration, Effect, Either, Layer, ParseResult, Schema } from "effect"
import type { SessionId } from "@turnlog/protocol"
import type { LlmAdapter } from "@turnlog/llm"
import { parametersOf } from "./internal/jsonSchema.js"
import { InvalidArguments, type ToolError, ToolTimeout, UnknownTool } from "./ToolError.js"

/** Where a call runs. */
export interface ToolContext {
  readonly sessionId: SessionId
  readonly callId: string
  /** The session's working directory; tools stay inside it. */
  readonly cwd: string
}

/** What a call needs the user's consent for; reads need none. */
export interface PermissionNeed {
  readonly kind: "write" | "command"
  /** One line the user is asked about, e.g. `Write src/a.ts`. */
  readonly title: string
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
  readonly prepare: (
    args: A,
    context: ToolContext,
  ) => Effect.Effect<Omit<PreparedCall, "input"> & { readonly input?: unknown }, ToolError>
}

/** A tool with its argument type erased, as the registry holds it. */
export interface Tool {
  readonly spec: LlmAdapter.ToolSpec
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

export const define = <A, I>(definition: Definition<A, I>): Tool => {
  const decode = Schema.decodeUnknownEither(definition.parameters)
  const limit = definition.timeoutMs
  return {
    spec: {
      name: definition.name,
      description: definition.description,
      parameters: parametersOf(definition.parameters as Schema.Schema.AnyNoContext),
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
        return { ...prepared, input: prepared.input ?? raw, run }
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
}

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
  }
}

export const layer = (tools: ReadonlyArray<Tool>): Layer.Layer<Tools> => Layer.sync(Tools, () => make(tools))
