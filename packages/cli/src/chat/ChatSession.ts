/**
 * The interactive session's driver: what the user types goes to the agent
 * loop — a prompt as a turn, exactly as `run` sends it, or a slash command —
 * and what the loop streams goes to the view. Ctrl-C during a turn cancels it
 * through the loop (it ends `cancelled`, as in `run`) and the prompt comes
 * back. Nothing of the session is kept here: the log holds it.
 */
import { Effect, Either, Option, Queue, Runtime, Stream } from "effect"
import { AgentLoop, Tools } from "@turnlog/agent"
import * as Rules from "@turnlog/acp/Rules"
import * as Updates from "@turnlog/acp/Updates"
import { LlmAdapter } from "@turnlog/llm"
import type { SessionId } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store"
import { asCommandError } from "../StoreErrors.js"
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
}

type Input = { readonly type: "text"; readonly text: string } | { readonly type: "exit" }

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
    const state = { id: options.session, model: options.model }
    /** The route's context window, when the adapter knows the model. */
    const windowOf = (route: string): number | undefined => {
      const slash = route.indexOf("/")
      return Option.getOrUndefined(adapter)?.modelInfo?.(route.slice(0, slash), route.slice(slash + 1))?.contextWindow
    }

    const restoreRules = (id: SessionId) =>
      Effect.map(store.read(id), (loaded) => permissions.restore(id, Updates.rulesOf(loaded.events)))
    const saveRules = Rules.saver({
      bridge: permissions,
      store,
      loop,
      modelOf: () => state.model,
      log: (line) => view.problem(line),
    })

    yield* restoreRules(state.id)
    view.setFooter({ model: state.model, session: state.id, contextWindow: windowOf(state.model) })
    view.listen({
      onSubmit: (text) => Queue.unsafeOffer(inputs, { type: "text", text }),
      onCancel: () => void Runtime.runFork(runtime)(loop.cancel(state.id)),
      onExit: () => Queue.unsafeOffer(inputs, { type: "exit" }),
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
            Effect.sync(() => view.apply(update, update.type === "tool-call" ? display.display(update).title : undefined))
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
        return id
      }),
      switchModel: (model) =>
        Effect.map(loop.load(state.id, { model, tools: options.tools }), () => view.setFooter({ contextWindow: windowOf(model) })),
    })

    while (true) {
      const input = yield* Queue.take(inputs)
      if (input.type === "exit") return
      const text = input.text.trim()
      const work = text.startsWith("/") ? commands.run(text) : Effect.as(turn(input.text), "stay" as const)
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
