/**
 * `turnlog run`: one turn from the terminal. The answer streams to stdout;
 * the session id, tool activity and anything worth knowing go to stderr. Exit
 * 0 when the turn completes or stops at max tokens, 1 when it fails.
 */
import { join } from "node:path"
import { Effect, Option, Stream } from "effect"
import { AgentLoop, Tools } from "@turnlog/agent"
import { LlmAdapter } from "@turnlog/llm"
import { McpServers } from "@turnlog/mcp"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store"
import { CommandFailed, UsageError } from "../CliError.js"
import * as Color from "../Color.js"
import * as FailureLine from "../FailureLine.js"
import * as Layers from "../Layers.js"
import * as ModelChoice from "../ModelChoice.js"
import * as PromptInput from "../PromptInput.js"
import * as SessionIdArg from "../SessionIdArg.js"
import { isTTY, line, note, Terminal } from "../Output.js"
import { RunView } from "../RunView.js"
import { Invocation, type Settings } from "../Settings.js"
import { asCommandError } from "../StoreErrors.js"
import * as TerminalPermissions from "../TerminalPermissions.js"

export interface RunOptions {
  readonly model: Option.Option<string>
  readonly session: Option.Option<string>
  readonly continue: boolean
  readonly maxTokens: Option.Option<number>
  readonly allowTools: boolean
  /** The session's mode from this run on (absent: the one its log has, `ask` for a new session). */
  readonly mode: Option.Option<SessionLog.Mode>
  /** The session's reasoning effort from this run on (absent: the one its log has, `off` for a new session). */
  readonly reasoning?: Option.Option<SessionLog.ReasoningEffort>
  /** One JSON object per line on stdout for each update, and nothing else there. */
  readonly json?: boolean
  readonly prompt: ReadonlyArray<string>
}

export const announce = (choice: ModelChoice.Choice): Effect.Effect<void> => {
  switch (choice.kind) {
    case "demo":
      return note(choice.note)
    case "script":
      return note(`scripted model ${choice.file} answers as ${choice.route}`)
    case "provider":
      return choice.note === undefined ? Effect.void : note(choice.note)
  }
}

/**
 * What `run` (and `acp`, which has no `--model`) says when nothing can
 * answer: what to set, where, and the keyless alternative.
 */
export const noProvider = (settings: Settings, options: { readonly modelFlag?: boolean } = {}): string => {
  const config = settings.configFile === undefined
    ? `no config file was found at ${join(settings.home, "config.json")}`
    : `the config file ${settings.configFile} names no "model"`
  return `no model to run: no provider key is set and ${config}. ` +
    `Set ${ModelChoice.KEYED_PROVIDERS.map((p) => p.env).join(", ")}${
      options.modelFlag === false ? "" : " (or name a model with --model <provider>/<model>)"
    }, ` +
    `or set "model" in a config file ($TURNLOG_CONFIG, --config, or config.json in $TURNLOG_HOME). ` +
    `To try turnlog without a key: turnlog demo`
}

/**
 * Picks the session (`run` and `chat`): the one named, the latest in this
 * directory, or a new one. A session continued keeps its model (the route its
 * last request used) unless `--model` names another: then the switch is said.
 */
export const sessionFor = (
  options: Pick<RunOptions, "session" | "continue" | "model">,
  choice: ModelChoice.Choice,
  tools: ReadonlyArray<Tools.Tool>,
) => Effect.map(openSession(options, choice, tools), (opened) => opened.id)

/** `sessionFor`, with the route in force for the session's next request. */
export const openSession = (
  options: Pick<RunOptions, "session" | "continue" | "model">,
  choice: ModelChoice.Choice,
  tools: ReadonlyArray<Tools.Tool>,
) =>
  Effect.gen(function*() {
    const loop = yield* AgentLoop.AgentLoop
    const store = yield* SessionStore.SessionStore
    let id: SessionId | undefined
    if (Option.isSome(options.session)) {
      id = yield* SessionIdArg.resolve(options.session.value)
    } else if (options.continue) {
      const cwd = (yield* Invocation).cwd
      // Only this directory's sessions: the store keeps what it read of the latest for the `open` that follows.
      const listed = yield* store.list({ cwd })
      if (listed.unreadable.length > 0) {
        // Named one by one: the one the user meant to continue may be among them.
        for (const { error, id: unreadable } of listed.unreadable) {
          yield* note(`session ${unreadable} cannot be read: ${error.message}`)
        }
        yield* note(`${listed.unreadable.length} stored session(s) cannot be read and were not considered (see: turnlog doctor --all)`)
      }
      const latest = listed.sessions.find((s) => s.cwd === cwd)
      if (latest === undefined) {
        return yield* new CommandFailed({
          message: `no session to continue in ${cwd}; start one with: turnlog run <prompt>`,
        })
      }
      id = latest.id
    }
    const route = choice.route
    if (id === undefined) {
      yield* announce(choice)
      const created = yield* loop.createSession({ cwd: (yield* Invocation).cwd, model: route, tools })
      return { id: created, route }
    }
    const switched = Option.isSome(options.model)
    const loaded = yield* loop.load(id, switched ? { model: route, tools } : { keepModel: true, tools })
    const last = AgentLoop.lastRoute(loaded.events)
    const previous = last === undefined ? undefined : `${last.provider}/${last.model}`
    // What decided the route is said only when it is the route in force.
    if (previous === undefined || switched || previous === route) yield* announce(choice)
    if (switched && previous !== undefined && previous !== route) yield* note(`model: ${previous} → ${route}`)
    if (loaded.recovery.tornTail !== undefined) {
      yield* note(`session ${id}: a torn tail of ${loaded.recovery.tornTail.bytes} bytes was cut off and kept aside`)
    }
    if (loaded.recovery.closedTurn !== undefined && loaded.recovery.closedTurn.length > 0) {
      yield* note(`session ${id}: the last turn was left open by a stopped process; it is now closed as interrupted`)
    }
    return { id, route: switched || previous === undefined ? route : previous }
  })

export const run = (settings: Settings, options: RunOptions) =>
  Effect.gen(function*() {
    if (Option.isSome(options.session) && options.continue) {
      return yield* new UsageError({ message: "--session and --continue cannot be used together: choose one" })
    }
    const prompt = yield* PromptInput.compose(options.prompt)
    if (prompt === "") return yield* new UsageError({ message: "the prompt is empty: turnlog run <prompt…>" })
    if (Option.isSome(options.maxTokens) && options.maxTokens.value <= 0) {
      return yield* new UsageError({ message: "--max-tokens must be a positive integer" })
    }
    const invocation = yield* Invocation
    const terminal = yield* Terminal
    const choice = yield* ModelChoice.choose(options.model, settings, invocation.env)
    if (choice.kind === "demo") {
      // A canned answer to a real question, with exit 0, hides a key or config
      // that did not load; the keyless demo is its own command.
      yield* Layers.providersChecked(settings)
      return yield* new UsageError({ message: noProvider(settings) })
    }
    const turn = Effect.gen(function*() {
      const loop = yield* AgentLoop.AgentLoop
      const display = yield* Tools.Tools
      // The config's MCP servers, for this run; a server that cannot start is noted and left out.
      const mcp = yield* McpServers.McpServers
      const { tools } = yield* mcp.start(settings.config.mcpServers ?? [], { cwd: invocation.cwd })
      const { id, route } = yield* openSession(options, choice, tools)
      yield* note(`session ${id}`)
      if (Option.isSome(options.mode)) yield* loop.setMode(id, options.mode.value)
      if (options.reasoning !== undefined && Option.isSome(options.reasoning)) yield* loop.setReasoning(id, options.reasoning.value)
      const adapter = yield* Effect.serviceOption(LlmAdapter.LlmAdapter)
      const slash = route.indexOf("/")
      // On a terminal the answer's markdown is drawn; piped, it stays the model's text.
      const markdown = isTTY(terminal.stdout) && options.json !== true
        ? (yield* Effect.promise(() => import("../TerminalMarkdown.js"))).renderer(Color.allowed(invocation.env), () => terminal.stdout.columns ?? 80)
        : undefined
      // Under --json the view is given nothing: every update is printed as it is.
      const view = new RunView({
        out: (text) => terminal.stdout.write(text),
        err: (text) => terminal.stderr.write(text),
        errTty: isTTY(terminal.stderr),
        color: Color.allowed(invocation.env),
        route,
        markdown,
        model: Option.getOrUndefined(adapter)?.modelInfo?.(route.slice(0, slash), route.slice(slash + 1)),
        title: (call) => display.display(call).title,
      })
      if (options.json === true) yield* line({ type: "session", session: id, model: route })
      const end = yield* loop.prompt(id, prompt).pipe(
        Stream.runFold(
          undefined as Extract<AgentLoop.AgentUpdate, { type: "turn-end" }> | undefined,
          (end, update) => {
            if (options.json === true) terminal.stdout.write(`${JSON.stringify(update)}\n`)
            else view.apply(update)
            return update.type === "turn-end" ? update : end
          },
        ),
        Effect.ensuring(Effect.sync(() => view.close())),
      )
      if (end === undefined) return yield* new CommandFailed({ message: "the turn ended without an end" })
      switch (end.reason) {
        case "completed":
          return
        case "max-tokens":
          return yield* note(
            `the answer stopped at the output limit; any unfinished tool call was dropped. Continue with: turnlog run --session ${id} <prompt>`,
          )
        case "error":
          return yield* new CommandFailed({ message: FailureLine.turnFailed(end.failure, FailureLine.keyVariable(settings.config.providers, route)) })
        case "cancelled":
        case "interrupted":
          return yield* new CommandFailed({ message: "the turn was cancelled" })
        case "max-steps":
          return yield* new CommandFailed({ message: "the turn stopped after the maximum number of steps" })
      }
    }).pipe(Effect.scoped, Effect.mapError(asCommandError))

    return yield* turn.pipe(
      Effect.provide(Layers.agentLayer({
        settings,
        choice,
        permissions: Layers.permissionsLayer(settings, TerminalPermissions.layer(), { allowTools: options.allowTools }),
        ...(Option.isSome(options.maxTokens) ? { maxTokens: options.maxTokens.value } : {}),
      })),
      Effect.provide(Layers.mcpLayer(settings)),
    )
  })
