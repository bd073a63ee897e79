/**
 * The interactive session's driver: what the user types goes to the agent
 * loop — a prompt as a turn, exactly as `run` sends it, or a slash command —
 * and what the loop streams goes to the view. Ctrl-C during a turn cancels it
 * through the loop (it ends `cancelled`, as in `run`) and the prompt comes
 * back. Nothing of the session is kept here: the log holds it.
 */
import { Effect, Either, Option, Queue, Runtime, Stream } from "effect"
import { AgentLoop, PlanExit, Tools } from "@turnlog/agent"
import * as Rules from "@turnlog/acp/Rules"
import * as Updates from "@turnlog/acp/Updates"
import { LlmAdapter } from "@turnlog/llm"
import { parseRoute, type SessionId, SessionLog } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store"
import * as OutputFile from "../OutputFile.js"
import { asCommandError } from "../StoreErrors.js"
import * as Transcript from "../Transcript.js"
import * as Attach from "./Attach.js"
import type { ChatPermissions } from "./ChatPermissions.js"
import type { ChatView } from "./ChatView.js"
import * as SlashCommands from "./SlashCommands.js"

export interface Options {
  readonly view: ChatView
  readonly permissions: ChatPermissions
  /** The session to talk in (opened by the caller, as `run` opens it). */
  readonly session: SessionId
  /** The model route the session runs with. */
  readonly model: string
  /** Tools beyond the built-ins (the config's MCP servers). */
  readonly tools: ReadonlyArray<Tools.Tool>
  /** The directory new sessions belong to. */
  readonly cwd: string
  /** The store's kind (`jsonl`, `sqlite`, …), as an exported page names it. */
  readonly store: string
  /** The routes `/model` offers (the list `turnlog models` prints). */
  readonly models?: ReadonlyArray<string>
  /** The session's mode from now on (`--mode`); absent: the one its log has. */
  readonly mode?: SessionLog.Mode
  /** The session's reasoning effort from now on (`--reasoning`); absent: the one its log has. */
  readonly reasoning?: SessionLog.ReasoningEffort
}

/** How many of a resumed session's turns are shown. */
const PAST_TURNS = 10

type Input = { readonly type: "text"; readonly text: string } | { readonly type: "exit" } | { readonly type: "cycle-mode" }

/** Runs until the user leaves; the view is the caller's to start and stop. */
export const run = (options: Options) =>
  Effect.gen(function*() {
    const loop = yield* AgentLoop.AgentLoop
    const store = yield* SessionStore.SessionStore
    const display = yield* Tools.Tools
    const runtime = yield* Effect.runtime<never>()
    const inputs = yield* Queue.unbounded<Input>()
    const adapter = yield* Effect.serviceOption(LlmAdapter.LlmAdapter)
    const { view, permissions } = options
    const state = {
      id: options.session,
      model: options.model,
      mode: SessionLog.DEFAULT_MODE as SessionLog.Mode,
      reasoning: "off" as SessionLog.ReasoningEffort,
    }
    /** The route's context window, when the adapter knows the model. */
    const windowOf = (text: string): number | undefined => {
      const route = parseRoute(text)
      return route === undefined ? undefined : Option.getOrUndefined(adapter)?.modelInfo?.(route.provider, route.model)?.contextWindow
    }

    /** A call as its tool displays it: the title, and the changes an edit's diff is drawn from. */
    const shownOf = (call: { readonly name: string; readonly arguments: string }) => {
      const { title, changes } = display.display(call)
      return { title, changes }
    }

    const saveRules = Rules.saver({
      bridge: permissions,
      store,
      loop,
      modelOf: () => state.model,
      log: (line) => view.problem(line),
    })

    /**
     * A session opened: read once for its standing permission answers, its mode
     * and reasoning effort, and its latest turns, shown as they were streamed.
     */
    const opened = (id: SessionId) =>
      Effect.map(store.read(id), (loaded) => {
        permissions.restore(id, Updates.rulesOf(loaded.events))
        state.mode = SessionLog.modeOf(loaded.events)
        state.reasoning = SessionLog.reasoningOf(loaded.events)
        view.setFooter({ mode: state.mode, reasoning: state.reasoning })
        const { turns } = Transcript.fromSession(loaded)
        if (turns.length > PAST_TURNS) view.note(`${turns.length - PAST_TURNS} earlier turns: turnlog show ${id}`)
        for (const turn of turns.slice(-PAST_TURNS)) {
          for (const item of turn.items) {
            switch (item.role) {
              case "user":
                view.user(item.text)
                break
              case "assistant":
                if (item.reasoning !== undefined) view.apply({ type: "reasoning-delta", text: item.reasoning })
                view.apply({ type: "text-delta", text: item.text })
                break
              case "tool-call":
                view.apply({ type: "tool-call", callId: item.callId, name: item.name, arguments: item.arguments }, shownOf(item))
                break
              case "tool-result":
                view.apply({ type: "tool-result", callId: item.callId, name: "", content: item.content, isError: item.isError })
                break
              case "compaction":
                view.apply({ type: "compaction", phase: "done", tokensBefore: item.tokensBefore, tokensAfter: item.tokensAfter })
                break
            }
          }
          if (turn.end !== undefined)
            view.apply({ type: "turn-end", reason: turn.end.reason, ...(turn.end.failure === undefined ? {} : { failure: turn.end.failure }) })
        }
      })

    const setMode = (mode: SessionLog.Mode) =>
      Effect.map(loop.setMode(state.id, mode), () => {
        state.mode = mode
        view.setFooter({ mode })
      })
    const setReasoning = (effort: SessionLog.ReasoningEffort) =>
      Effect.map(loop.setReasoning(state.id, effort), () => {
        state.reasoning = effort
        view.setFooter({ reasoning: effort })
      })
    /** A plan approved during the turn left read-only mode (the loop logged the mode before the call's result). */
    const followMode = (update: AgentLoop.AgentUpdate) => {
      if (update.type === "tool-result" && update.name === PlanExit.NAME && !update.isError) {
        state.mode = PlanExit.TARGET
        view.setFooter({ mode: state.mode })
      }
    }

    /** The footer's context share and cost, from the log of the session in use as the loop holds it. */
    const refreshUsage = Effect.suspend(() =>
      Effect.map(loop.contextUsage(state.id), (usage) =>
        view.setFooter({
          contextWindow: usage?.size ?? windowOf(state.model),
          // A session with no answer yet has used nothing worth a share.
          contextUsed: usage === undefined || usage.used === 0 ? undefined : usage.used,
          costUsd: usage?.costUsd,
        }))
    )

    yield* opened(state.id)
    // `--mode` and `--reasoning`: kept in the log, as `run` keeps them.
    if (options.mode !== undefined) yield* setMode(options.mode)
    if (options.reasoning !== undefined) yield* setReasoning(options.reasoning)
    view.setFooter({ model: state.model, session: state.id, contextWindow: windowOf(state.model) })
    yield* refreshUsage
    view.listen({
      onSubmit: (text) => Queue.unsafeOffer(inputs, { type: "text", text }),
      onCancel: () => void Runtime.runFork(runtime)(loop.cancel(state.id)),
      onExit: () => Queue.unsafeOffer(inputs, { type: "exit" }),
      onCycleMode: () => Queue.unsafeOffer(inputs, { type: "cycle-mode" }),
    })

    const turn = (text: string) =>
      Effect.gen(function*() {
        view.user(text)
        const content = Attach.content(text, options.cwd)
        if (Either.isLeft(content)) return view.problem(`not sent: ${content.left}`)
        for (const file of Attach.mentioned(text, options.cwd)) view.note(`attached ${file}`)
        view.setBusy(true)
        yield* loop.prompt(state.id, content.right).pipe(
          Stream.runForEach((update) =>
            Effect.zipRight(
              Effect.sync(() => {
                view.apply(update, update.type === "tool-call" ? shownOf(update) : undefined)
                followMode(update)
              }),
              update.type === "usage" ? refreshUsage : Effect.void,
            )
          ),
          Effect.ensuring(Effect.sync(() => view.setBusy(false))),
        )
        yield* saveRules(state.id)
      })

    const commands = SlashCommands.make({
      view,
      loop,
      store,
      state,
      newSession: Effect.gen(function*() {
        const id = yield* loop.createSession({ cwd: options.cwd, model: state.model, tools: options.tools })
        const old = state.id
        state.id = id
        // The old session's lease goes now: another process may continue it.
        yield* Effect.ignore(loop.release(old))
        permissions.restore(id, [])
        // The mode and reasoning effort chosen in this chat go on in the new session, logged in it.
        if (state.mode !== SessionLog.DEFAULT_MODE) yield* setMode(state.mode)
        if (state.reasoning !== "off") yield* setReasoning(state.reasoning)
        yield* refreshUsage
        return id
      }),
      switchSession: (id) =>
        Effect.gen(function*() {
          // The session keeps its model, as `run --session` keeps it; one that made no request yet takes the chat's.
          const loaded = yield* loop.load(id, { keepModel: true, tools: options.tools })
          const last = AgentLoop.lastRoute(loaded.events)
          if (last === undefined) yield* loop.load(id, { model: state.model, tools: options.tools })
          else state.model = `${last.provider}/${last.model}`
          const old = state.id
          state.id = id
          yield* Effect.ignore(loop.release(old))
          yield* opened(id)
          view.setFooter({ model: state.model })
          yield* refreshUsage
        }),
      cwd: options.cwd,
      models: options.models ?? [],
      // The page's code is loaded when a page is asked for, not with every chat.
      exportPage: (id, path) =>
        Effect.promise(() => import("../html/HtmlExport.js")).pipe(
          Effect.flatMap((HtmlExport) => OutputFile.writeFile(path, (write) => HtmlExport.writePage(id, options.store, write))),
          Effect.provideService(SessionStore.SessionStore, store),
        ),
      setMode,
      setReasoning,
      reasons: loop.reasons,
      switchModel: (model) =>
        loop.load(state.id, { model, tools: options.tools }).pipe(
          Effect.tap(() => Effect.sync(() => void (state.model = model))),
          Effect.zipRight(refreshUsage),
        ),
    })

    while (true) {
      const input = yield* Queue.take(inputs)
      if (input.type === "exit") return
      // Shift-Tab: `/mode <next>`, said as the command says it, without the command echoed.
      const text = input.type === "cycle-mode" ? `/mode ${SlashCommands.nextMode(state.mode)}` : input.text.trim()
      // A command is shown as typed, like a prompt, so what answers it reads under it.
      if (text.startsWith("/") && input.type === "text") view.user(text)
      const work = text.startsWith("/") || input.type !== "text" ? commands.run(text) : Effect.as(turn(input.text), "stay" as const)
      // A failure is said in the view and the session goes on; the log keeps what was done.
      const next = yield* work.pipe(
        Effect.catchAll((error) =>
          Effect.sync(() => {
            view.problem(asCommandError(error).message)
            return "stay" as const
          })
        ),
      )
      if (next === "quit") return
    }
  })
