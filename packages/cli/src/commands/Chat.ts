/**
 * `turnlog chat` (and `turnlog` alone on a terminal): the interactive
 * session. The same model choice, session choice, store, tools and log as
 * `run`; turns are sent one after another from an editor, and the answers are
 * shown as they stream (see `chat/ChatView`). Leaving ends with exit 0.
 */
import { ProcessTerminal } from "@mariozechner/pi-tui"
import { Effect, Layer, Option } from "effect"
import { Redaction } from "@turnlog/llm"
import { McpServers } from "@turnlog/mcp"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store"
import * as ChatPermissions from "../chat/ChatPermissions.js"
import * as ChatSession from "../chat/ChatSession.js"
import * as HangUp from "../chat/HangUp.js"
import * as History from "../chat/History.js"
import { ChatView } from "../chat/ChatView.js"
import * as SlashCommands from "../chat/SlashCommands.js"
import * as StderrNotes from "../chat/StderrNotes.js"
import * as Resume from "../chat/Resume.js"
import { CommandFailed, UsageError } from "../CliError.js"
import * as FailureLine from "../FailureLine.js"
import * as Layers from "../Layers.js"
import * as ModelChoice from "../ModelChoice.js"
import * as Secrets from "../Secrets.js"
import { isTTY, Terminal } from "../Output.js"
import { Invocation, type Settings } from "../Settings.js"
import { asCommandError } from "../StoreErrors.js"
import * as Models from "./Models.js"
import { announce, noProvider, openSession } from "./Run.js"

export interface ChatOptions {
  readonly model: Option.Option<string>
  readonly session: Option.Option<string>
  readonly continue: boolean
  readonly resume: boolean
  /** The session's mode from now on (absent: the one its log has, `ask` for a new session). */
  readonly mode?: Option.Option<SessionLog.Mode>
  /** The session's reasoning effort from now on (absent: the one its log has, `off` for a new session). */
  readonly reasoning?: Option.Option<SessionLog.ReasoningEffort>
}

/** How the interactive session names itself in the leases it takes. */
export const CHAT_PROGRAM = "turnlog chat"

/** Both ends of the command on a terminal: what `turnlog` with no command needs to open a session. */
export const onTerminal: Effect.Effect<boolean> = Effect.zipWith(
  Invocation,
  Terminal,
  (invocation, terminal) => invocation.stdin.isTTY === true && isTTY(terminal.stdout),
)

export const chat = (settings: Settings, options: ChatOptions) =>
  Effect.gen(function*() {
    if ([Option.isSome(options.session), options.continue, options.resume].filter(Boolean).length > 1) {
      return yield* new UsageError({ message: "--session, --continue and --resume cannot be used together: choose one" })
    }
    if (!(yield* onTerminal)) {
      return yield* new UsageError({ message: "turnlog chat needs a terminal on stdin and stdout; for one turn from a script use: turnlog run <prompt>" })
    }
    const { cwd, env } = yield* Invocation
    const choice = yield* ModelChoice.choose(options.model, settings, env)
    if (choice.kind === "demo") {
      yield* Layers.providersChecked(settings)
      return yield* new UsageError({ message: noProvider(settings) })
    }
    yield* announce(choice)
    const history = History.fileFor(settings.home, cwd)
    const redactor = Secrets.of(settings, env).redactor
    // The list `turnlog models` prints, after the model chosen here (a scripted one is in no catalog).
    const models = [...new Set([choice.route, ...(yield* Models.listed(settings)).map((row) => row.route)])]
    const view = new ChatView(new ProcessTerminal(), {
      commands: SlashCommands.commands(models),
      cwd,
      history: History.load(history),
      remember: (text) => void History.append(history, Redaction.text(redactor, text)),
      keyVariable: (route) => FailureLine.keyVariable(settings.config.providers, route),
    })
    view.setFooter({ model: choice.route })
    const permissions = ChatPermissions.make(view)

    const session = Effect.gen(function*() {
      const mcp = yield* McpServers.McpServers
      const { tools } = yield* mcp.start(settings.config.mcpServers ?? [], { cwd })
      const shown = Effect.acquireRelease(
        Effect.sync(() => {
          const unwatch = HangUp.watch()
          view.start()
          const restore = StderrNotes.capture((line) => view.note(line))
          return () => {
            restore()
            view.stop()
            unwatch()
          }
        }),
        (stop) => Effect.sync(stop),
      )
      let opened: { readonly id: SessionId; readonly route: string }
      if (options.resume) {
        yield* shown
        const store = yield* SessionStore.SessionStore
        const sessions = yield* Resume.here(store, cwd)
        if (sessions.length === 0) {
          return yield* new CommandFailed({ message: `no session to resume in ${cwd}; start one with: turnlog chat` })
        }
        const chosen = yield* Effect.promise(() => view.pick("Resume which session?", Resume.items(sessions, Date.now())))
        if (chosen === undefined) return
        opened = yield* openSession({ session: Option.some(chosen), continue: false, model: options.model }, choice, tools)
      } else {
        // Opened before the view starts: what opening says (a recovered tail, a closed turn) is read on the terminal as `run` prints it.
        opened = yield* openSession(options, choice, tools)
        yield* shown
      }
      // A session continued keeps its model, as `run` keeps it: the footer names the route its requests go to.
      yield* ChatSession.run({
        view,
        permissions,
        session: opened.id,
        model: opened.route,
        tools,
        cwd,
        store: settings.store,
        models,
        ...(options.mode === undefined || Option.isNone(options.mode) ? {} : { mode: options.mode.value }),
        ...(options.reasoning === undefined || Option.isNone(options.reasoning) ? {} : { reasoning: options.reasoning.value }),
      })
    }).pipe(Effect.scoped, Effect.mapError(asCommandError))

    return yield* session.pipe(
      Effect.provide(Layers.agentLayer({
        settings,
        choice,
        // Another process that finds the session held is told the interactive session has it.
        program: CHAT_PROGRAM,
        permissions: Layers.permissionsLayer(settings, permissions.layer),
      })),
      Effect.provide(Layers.mcpLayer(settings)),
      // The model's facts (its context window) for the footer; the loop has its own adapter.
      Effect.provide(Layers.modelLayer(settings, choice).pipe(Layer.provide(Layers.replayDiagnosticsLayer))),
    )
  })
