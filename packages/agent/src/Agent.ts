/**
 * The agent loop behind Promises, for applications that do not use Effect:
 * `createAgent({ model }).prompt(text)` runs one turn of one session and
 * resolves with its answer; every failure is a plain `AgentFailure` (an
 * `Error` with a `code` and one sentence). Each `prompt` continues the same
 * session, so the model sees the conversation so far; `close` lets go of the
 * session and whatever the layers opened.
 *
 * The store is in memory unless a `store` layer is given (a JSONL home keeps
 * the session on disk, and `sessionId` continues one stored before). Tools
 * are the built-ins, confined to `cwd`, unless `tools` replaces them; a tool
 * call that writes or runs a command asks `allow` (default: every one is
 * refused, so nothing changes on disk unless the application says so).
 */
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option, Stream } from "effect"
import { type LlmAdapter, ReplayDiagnostics } from "@turnlog/llm"
import type { Failure, SessionId, SessionLog, Usage } from "@turnlog/protocol"
import { Memory, type SessionStore } from "@turnlog/store"
import * as AgentLoop from "./AgentLoop.js"
import * as Builtins from "./Builtins.js"
import * as Permissions from "./Permissions.js"
import * as Tools from "./Tools.js"

export interface AgentOptions {
  /** The model: any adapter layer (`AiSdkAdapter.layer(model)`, `PiAiAdapter.layerPiAi(config)`, a scripted one). */
  readonly model: Layer.Layer<LlmAdapter.LlmAdapter, unknown, ReplayDiagnostics.ReplayDiagnostics>
  /** `<provider>/<model>`, the route the log records the answers under (default `"model/default"`). */
  readonly route?: string
  /** The session's working directory, where the built-in tools act (default `process.cwd()`). */
  readonly cwd?: string
  /** The tools the model may call (default: the built-ins). */
  readonly tools?: ReadonlyArray<Tools.Tool>
  /** Whether a call that writes a file or runs a command may run (default: none may). */
  readonly allow?: (request: Permissions.Request) => boolean | Promise<boolean>
  /** The session store (default: in memory, gone with the process). */
  readonly store?: Layer.Layer<SessionStore.SessionStore, unknown>
  /** A stored session to continue instead of starting one. */
  readonly sessionId?: string
  /** The system prompt sent with each request. */
  readonly system?: string
  /** Each update of a turn as it happens (text as it streams, tool calls and results). */
  readonly onUpdate?: (update: AgentLoop.AgentUpdate) => void
  /** Replay state a request could not use (default: one line on stderr). */
  readonly onDiagnostic?: (diagnostic: ReplayDiagnostics.ReplayDiagnostic) => void
}

/** What one turn gave. */
export interface Reply {
  readonly sessionId: string
  /** The model's text over the whole turn. */
  readonly text: string
  /** Why the turn ended: `completed`, or `max-tokens` / `max-steps` with whatever text came first. */
  readonly reason: SessionLog.TurnEndReason
  readonly toolResults: ReadonlyArray<{ readonly name: string; readonly content: string; readonly isError: boolean }>
  /** Tokens of the turn's requests, summed, when the provider said. */
  readonly usage?: Usage
}

/** Every failure of the facade: `code` is the provider's failure code, or the loop's error tag. */
export class AgentFailure extends Error {
  override readonly name = "AgentFailure"
  constructor(readonly code: string, message: string) {
    super(message)
  }
}

export interface Agent {
  /** Runs one turn of the session; rejects with `AgentFailure` when the turn ends in an error or is cancelled. */
  readonly prompt: (text: string) => Promise<Reply>
  /** The session's id, once the first `prompt` made it (or the one given). */
  readonly sessionId: () => string | undefined
  /** Lets go of the session and closes what the layers opened; later prompts are refused. */
  readonly close: () => Promise<void>
}

const failureOf = (cause: Cause.Cause<unknown>): AgentFailure => {
  const error = Option.getOrUndefined(Cause.failureOption(cause)) ?? Cause.squash(cause)
  const code = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : "UNEXPECTED"
  return new AgentFailure(code, error instanceof Error ? error.message : String(error))
}

const added = (a: Usage | undefined, b: Usage): Usage => {
  if (a === undefined) return b
  const sum = (x: number | undefined, y: number | undefined) => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0))
  const optional = (["cacheReadTokens", "cacheWriteTokens", "reasoningTokens"] as const).flatMap((key) => {
    const value = sum(a[key], b[key])
    return value === undefined ? [] : [[key, value] as const]
  })
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, ...Object.fromEntries(optional) }
}

export const createAgent = (options: AgentOptions): Agent => {
  const diagnostics = Layer.succeed(ReplayDiagnostics.ReplayDiagnostics, {
    report: (ds) =>
      Effect.sync(() => {
        for (const d of ds) {
          if (options.onDiagnostic !== undefined) options.onDiagnostic(d)
          else process.stderr.write(`turnlog: ${ReplayDiagnostics.format(d)}\n`)
        }
      }),
  })
  const allow = options.allow
  const permissions = allow === undefined ? Permissions.layerDenyAll : Layer.succeed(Permissions.Permissions, {
    decide: (request) =>
      Effect.promise(async (): Promise<Permissions.Decision> => ((await allow(request)) ? "allow" : "deny")).pipe(
        // An `allow` that throws decides nothing: the call is refused.
        Effect.catchAllDefect(() => Effect.succeed("deny" as const)),
      ),
  })
  const layer = AgentLoop.layer({
    model: options.route ?? "model/default",
    ...(options.system === undefined ? {} : { system: options.system }),
  }).pipe(
    Layer.provide(Layer.mergeAll(
      options.model.pipe(Layer.provide(diagnostics)),
      options.tools === undefined ? Builtins.layer() : Tools.layer(options.tools),
      permissions,
    )),
    Layer.provide(options.store ?? Memory.layerMemory),
  )
  const runtime = ManagedRuntime.make(layer)
  const cwd = options.cwd ?? process.cwd()
  let session: SessionId | undefined = options.sessionId as SessionId | undefined
  let loaded = false
  let closed = false

  const open = Effect.gen(function*() {
    const loop = yield* AgentLoop.AgentLoop
    if (session === undefined) session = yield* loop.createSession({ cwd })
    else if (!loaded) yield* loop.load(session, { keepModel: options.route === undefined })
    loaded = true
    return { loop, id: session }
  })

  const turn = (text: string) =>
    Effect.gen(function*() {
      const { loop, id } = yield* open
      let answer = ""
      let usage: Usage | undefined
      const toolResults: Array<Reply["toolResults"][number]> = []
      let end: { reason: SessionLog.TurnEndReason; failure?: Failure } = { reason: "error" }
      yield* Stream.runForEach(loop.prompt(id, text), (update) =>
        Effect.sync(() => {
          options.onUpdate?.(update)
          if (update.type === "text-delta") answer += update.text
          else if (update.type === "tool-result") {
            toolResults.push({ name: update.name, content: update.content, isError: update.isError })
          } else if (update.type === "usage") usage = added(usage, update.usage)
          else if (update.type === "turn-end") end = update
        }))
      if (end.reason === "error" || end.reason === "cancelled" || end.reason === "interrupted") {
        return yield* Effect.fail(
          new AgentFailure(end.failure?.code ?? end.reason.toUpperCase(), end.failure?.message ?? `the turn ended: ${end.reason}`),
        )
      }
      const reply: Reply = { sessionId: id, text: answer, reason: end.reason, toolResults, ...(usage === undefined ? {} : { usage }) }
      return reply
    })

  return {
    prompt: async (text) => {
      if (closed) throw new AgentFailure("CLOSED", "the agent is closed")
      const exit = await runtime.runPromiseExit(turn(text))
      if (Exit.isSuccess(exit)) return exit.value
      const failure = Option.getOrUndefined(Cause.failureOption(exit.cause))
      throw failure instanceof AgentFailure ? failure : failureOf(exit.cause)
    },
    sessionId: () => session,
    close: async () => {
      if (closed) return
      closed = true
      await runtime.dispose()
    },
  }
}
