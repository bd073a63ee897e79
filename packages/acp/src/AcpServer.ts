// dprint-ignore-file -- the TypeScript plugin (0.96.1) reaches no stable layout for this file; kept as written until AcpServer is split per handler
/**
 * The Agent Client Protocol server: an editor drives the agent loop over one
 * connection (stdio for `turnlog acp`). Requests are translated to `AgentLoop`
 * calls; what the loop streams goes back as `session/update` notifications
 * before the request that caused it is answered. A bad request gets a JSON-RPC
 * error and the connection keeps serving. Besides prompts it serves the
 * session surface an editor uses: list, load, resume, close, the model as a
 * config option, standing permission answers and the `/doctor` command. A
 * session no prompt uses for a while is let go and opened again by its next
 * prompt (`internal/Lifetime.ts`); the pieces of a request live in `internal/`.
 */
import * as acp from "@agentclientprotocol/sdk"
import { Duration, Effect, Either, Exit, Option, Runtime } from "effect"
import { AgentLoop, Tools } from "@turnlog/agent"
import { McpServers } from "@turnlog/mcp"
import { SessionId, SessionLog } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store"
import { CallIds } from "./CallIds.js"
import * as Commands from "./Commands.js"
import { EditorHosts } from "./EditorHost.js"
import * as Errors from "./Errors.js"
import { requireDirectory } from "./internal/Cwd.js"
import * as Advertise from "./internal/Advertise.js"
import * as Attach from "./internal/Attach.js"
import * as Descriptors from "./internal/Descriptors.js"
import * as ForkDelete from "./internal/ForkDelete.js"
import * as Lifetime from "./internal/Lifetime.js"
import * as Open from "./internal/Open.js"
import * as PromptTurn from "./internal/PromptTurn.js"
import * as Rules from "./Rules.js"
import * as Runner from "./internal/Runner.js"
import * as SessionView from "./internal/SessionView.js"
import * as Slash from "./internal/Slash.js"
import * as Titles from "./internal/Titles.js"
import { initializeResponse, type Options } from "./internal/ServerOptions.js"
import { trackWrites } from "./internal/WriteTracker.js"
import * as ModelOption from "./ModelOption.js"
import * as ReasoningOption from "./ReasoningOption.js"
import * as Modes from "./Modes.js"
import * as SessionList from "./SessionList.js"
import * as SessionMcp from "./SessionMcp.js"
import { PermissionBridge } from "./PermissionBridge.js"
import { toUserContent } from "./PromptContent.js"
import * as Updates from "./Updates.js"

export { initializeResponse, type Options, PROTOCOL_VERSION } from "./internal/ServerOptions.js"

const stderrLog = (line: string) => {
  process.stderr.write(`turnlog: ${line}\n`)
}

export const make = (options: Options) =>
  Effect.gen(function*() {
    const loop = yield* AgentLoop.AgentLoop
    const bridge = yield* PermissionBridge
    const tools = yield* Tools.Tools
    const callIds = yield* CallIds
    const editorHosts = yield* EditorHosts
    const store = yield* SessionStore.SessionStore
    const models = options.models ?? []
    // A session's model when it is not the default, by session id.
    const chosenModel = new Map<string, string>()
    // A session's reasoning effort as its log leaves it, when it is not `off`.
    const chosenReasoning = new Map<string, SessionLog.ReasoningEffort>()
    const routeOf = (id: string): string | undefined => chosenModel.get(id) ?? models[0]
    const configOptions = (id: string) => {
      const current = routeOf(id)
      const offered = [
        ...(current === undefined ? [] : ModelOption.options(models, current)),
        // The effort is offered while the session's model reasons.
        ...(current !== undefined && loop.reasons(current) ? [ReasoningOption.option(chosenReasoning.get(id) ?? "off")] : []),
      ]
      return {
        ...(offered.length === 0 ? {} : { configOptions: offered }),
        ...(current === undefined ? {} : { models: ModelOption.modelState(models, current) }),
      }
    }
    const mcp = yield* Effect.serviceOption(McpServers.McpServers)
    const runtime = yield* Effect.runtime<never>()
    const log = options.log ?? stderrLog

    const run = Runner.make(runtime, log)
    const runPromise = Runtime.runPromise(runtime)
    const idleAfter = Duration.decode(options.idleRelease ?? Duration.seconds(120))
    /** Refuses a request that needs a model while none can run (see `Options.auth`). */
    const requireModel = async () => {
      const why = await options.auth?.missing()
      if (why !== undefined) throw Errors.authRequired(why)
    }

    const reportMcp = (servers: ReadonlyArray<acp.McpServer>) => {
      if (Option.isNone(mcp) && servers.length > 0) log(`MCP servers are accepted but not used yet: ${servers.map((s) => s.name).join(", ")}`)
    }

    const detach = Attach.detacher(bridge, editorHosts)
    const saveRules = Rules.saver({ bridge, store, loop, modelOf: (id) => chosenModel.get(id), log })

    /** A fresh agent app with this connection's state: open sessions and prompts in flight. */
    const app = (): {
      readonly app: acp.AgentApp
      readonly drained: () => Promise<void>
      readonly cancelAll: () => Promise<void>
    } => {
      const sessions = new Map<string, Updates.View>()
      // What the client offered in `initialize`: its sessions' tools use its file system and terminal.
      let clientOffers: acp.ClientCapabilities | undefined
      const attach = Attach.attacher(bridge, callIds, editorHosts, () => clientOffers)
      const mcpServers = SessionMcp.make({ service: mcp, run: (effect) => run(effect), log, configured: options.mcpServers ?? [] })
      const inFlight = new Map<string, Promise<unknown>>()
      // Prompts in flight that session/cancel was sent for, until they answer.
      const cancelling = new Map<string, Promise<unknown>>()
      const lifetime = Lifetime.make(runtime, {
        loop, mcpServers, run, log, after: idleAfter,
        modelOf: (id) => chosenModel.get(id),
        reopened: Open.reopened({ sessions, callIds, attach, log, run }),
      })

      const notify = Titles.notify
      // Sessions whose title the client was sent (session_info_update).
      const titled = new Set<string>()
      const sendTitle = Titles.sender(titled)

      const runTurn = PromptTurn.make({ loop, callIds, log, notify, sendTitle, saveRules })
      const slash = Slash.make({ doctor: options.doctor, store, loop, run, notify })

      const { advertise, advertiseNow, unadvertised } = Advertise.make(options.doctor !== undefined, (client, id) =>
        runPromise(notify(client, id, Commands.available)))

      const open = Open.make({
        loop,
        run,
        log,
        tools,
        callIds,
        mcpServers,
        lifetime,
        attach,
        sendTitle,
        sessions,
        inFlight,
        restore: (id, events) => {
          const effort = SessionLog.reasoningOf(events)
          if (effort === "off") chosenReasoning.delete(id)
          else chosenReasoning.set(id, effort)
        },
        forget: (id) => {
          // Opened again, the session talks to the default model.
          chosenModel.delete(id)
          titled.delete(id)
        },
        noteMcp: reportMcp,
        // The client named this session, so it may hear of its commands before the answer,
        // as it hears the replayed history: nothing is left to write once it has the answer.
        announce: async (client, id) => {
          if (options.doctor === undefined) return
          unadvertised.add(id)
          await advertiseNow(client, id)
        },
      })

      /** Switches the session to one of the configured models; answers the model chosen. */
      const switchModel = async (id: string, value: unknown): Promise<string> => {
        if (!sessions.has(id)) throw Errors.unknownSession(id)
        if (typeof value !== "string" || !models.includes(value)) {
          throw Errors.invalidParams(`model ${JSON.stringify(value)} is not one offered (${models.join(", ")})`)
        }
        if (inFlight.has(id)) throw Errors.busy(id)
        // The loop takes a session's model when it opens it: opened again, on the chosen route
        // (one let go is opened on it by its next prompt).
        await lifetime.using(id, async () => {
          if (lifetime.isReleased(id)) return
          await run(loop.load(SessionId.make(id), { model: value }).pipe(Effect.mapError(Errors.fromAgentError)))
        })
        if (value === models[0]) chosenModel.delete(id)
        else chosenModel.set(id, value)
        return value
      }

      /** Lets go of a session open on this connection; a prompt in flight ends as cancelled (and is answered) first. */
      const closeSession = async (id: string) => {
        if (!sessions.has(id)) throw Errors.unknownSession(id)
        await runPromise(loop.cancel(SessionId.make(id)))
        await inFlight.get(id)
        await lifetime.closed(id)
        sessions.delete(id)
        titled.delete(id)
        callIds.forget(id)
        await mcpServers.close(id)
        await run(
          detach(id).pipe(
            Effect.zipRight(loop.release(SessionId.make(id))),
            Effect.mapError(Errors.fromAgentError),
          ),
        )
      }
      const lifecycle = ForkDelete.make({
        store, run, sessions, inFlight, close: closeSession,
        open: (client, params) => open(client, params, false),
      })

      /** Logs the session's reasoning effort between turns (offered while its model reasons). */
      const setReasoning = async (client: acp.AgentContext, id: string, value: unknown) => {
        if (!sessions.has(id)) throw Errors.unknownSession(id)
        const route = routeOf(id)
        if (route === undefined || !loop.reasons(route)) {
          throw Errors.invalidParams(`the session's model${route === undefined ? "" : ` ${route}`} does not reason: it takes no reasoning effort`)
        }
        const effort = ReasoningOption.parse(value)
        if (effort === undefined) {
          throw Errors.invalidParams(`reasoning effort ${JSON.stringify(value)} is not one offered (${SessionLog.REASONING_EFFORTS.join(", ")})`)
        }
        if (inFlight.has(id)) throw Errors.busy(id)
        await lifetime.using(id, async () => {
          await lifetime.ensureOpen(client, id)
          await run(loop.setReasoning(SessionId.make(id), effort).pipe(Effect.mapError(Errors.fromAgentError)))
        })
        if (effort === "off") chosenReasoning.delete(id)
        else chosenReasoning.set(id, effort)
      }

      const agentApp = acp.agent({ name: "turnlog" })
        .onRequest(acp.methods.agent.initialize, ({ params }) => {
          clientOffers = params.clientCapabilities
          return initializeResponse(options.version, options.auth === undefined ? [] : [options.auth.method])
        })
        .onRequest(acp.methods.agent.authenticate, async ({ params }) => {
          if (options.auth === undefined || params.methodId !== options.auth.method.id) {
            throw Errors.invalidParams(`authentication method ${JSON.stringify(params.methodId)} is not one offered${
              options.auth === undefined ? "" : ` (${options.auth.method.id})`
            }`)
          }
          await requireModel()
          return {}
        })
        .onRequest(acp.methods.agent.session.new, Descriptors.guarded(async ({ client, params }) => {
          await requireModel()
          requireDirectory(params.cwd)
          const servers = await mcpServers.start(params.mcpServers, params.cwd)
          let own: SessionMcp.SessionTools = {}
          const id = await servers.use(
            (tools) => (own = tools, run(loop.createSession({ cwd: params.cwd, ...tools }).pipe(Effect.mapError(Errors.fromAgentError)))),
            (id) => id,
          )
          reportMcp(params.mcpServers)
          const view: Updates.View = { cwd: params.cwd, tools: SessionView.tools(tools, own.tools) }
          callIds.forget(id)
          titled.delete(id)
          sessions.set(id, view)
          await lifetime.using(id, async () => {
            await run(attach(client, id, view))
            lifetime.opened(id, params.mcpServers, params.cwd)
          })
          chosenModel.delete(id)
          chosenReasoning.delete(id)
          advertise(client, id)
          return { sessionId: id, modes: Modes.state(SessionLog.DEFAULT_MODE), ...configOptions(id) }
        }))
        .onRequest(acp.methods.agent.session.load, async ({ client, params }) => {
          const mode = await open(client, params, true)
          return { modes: Modes.state(mode), ...configOptions(params.sessionId) }
        })
        .onRequest(acp.methods.agent.session.resume, async ({ client, params }) => {
          const mode = await open(client, params, false)
          return { modes: Modes.state(mode), ...configOptions(params.sessionId) }
        })
        .onRequest(acp.methods.agent.session.setConfigOption, async ({ client, params }) => {
          if (params.configId === ReasoningOption.ID) {
            await setReasoning(client, params.sessionId, params.value)
            return { configOptions: configOptions(params.sessionId).configOptions ?? [] }
          }
          if (params.configId !== ModelOption.ID || models.length === 0) {
            if (!sessions.has(params.sessionId)) throw Errors.unknownSession(params.sessionId)
            throw Errors.invalidParams(`unknown config option "${params.configId}"`)
          }
          await switchModel(params.sessionId, params.value)
          return { configOptions: configOptions(params.sessionId).configOptions ?? [] }
        })
        // The older way some clients still choose a model (`models` in the session answers).
        .onRequest(ModelOption.SET_MODEL, ModelOption.parseSetModel, async ({ params }) => {
          await switchModel(params.sessionId, params.modelId)
          return {}
        })
        .onRequest(acp.methods.agent.session.setMode, async ({ client, params }) => {
          const id = params.sessionId
          if (!sessions.has(id)) throw Errors.unknownSession(id)
          const mode = Modes.parse(params.modeId)
          if (mode === undefined) {
            throw Errors.invalidParams(`mode ${JSON.stringify(params.modeId)} is not one offered (${Modes.available.map((m) => m.id).join(", ")})`)
          }
          if (inFlight.has(id)) throw Errors.busy(id)
          // Written to the log between turns, by the process that holds the session.
          await lifetime.using(id, async () => {
            await lifetime.ensureOpen(client, id)
            await run(loop.setMode(SessionId.make(id), mode).pipe(Effect.mapError(Errors.fromAgentError)))
          })
          await client.notify("session/update", { sessionId: id, update: Modes.update(mode) })
          return {}
        })
        .onRequest(acp.methods.agent.session.list, async ({ params }) => {
          const listed = await run(
            store.list().pipe(Effect.mapError((e) => Errors.fromAgentError(e))),
          )
          if (listed.unreadable.length > 0) {
            log(`session/list: ${listed.unreadable.length} stored session(s) cannot be read and are not listed (see: turnlog doctor --all)`)
          }
          const page = SessionList.page(listed.sessions, params)
          if (Either.isLeft(page)) throw Errors.invalidParams(page.left)
          return page.right
        })
        .onRequest(acp.methods.agent.session.close, async ({ params }) => {
          await closeSession(params.sessionId)
          return {}
        })
        .onRequest(acp.methods.agent.session.delete, async ({ params }) => lifecycle.remove(params.sessionId))
        // Unstable in the protocol (`sessionCapabilities.fork`): the session copied up to its last ended turn.
        .onRequest(ForkDelete.FORK, ForkDelete.parseFork, async ({ client, params }) => {
          const forked = await lifecycle.fork(client, params)
          advertise(client, forked.id)
          return { sessionId: forked.id, modes: Modes.state(forked.mode), ...configOptions(forked.id) }
        })
        .onRequest(acp.methods.agent.session.prompt, async ({ client, params, signal }) => {
          const id = params.sessionId
          const view = sessions.get(id)
          if (view === undefined) throw Errors.unknownSession(id)
          await requireModel()
          // A prompt sent right after session/cancel waits for the cancelled turn to close.
          const cancelled = cancelling.get(id)
          if (cancelled !== undefined) await cancelled
          if (inFlight.has(id)) throw Errors.busy(id)
          const content = toUserContent(params.prompt)
          if (Either.isLeft(content)) throw Errors.invalidParams(content.left)
          return lifetime.using(id, async () => {
            // A command is text alone: a prompt with an image goes to the model.
            const texts = content.right.flatMap((b) => (b.type === "text" ? [b] : []))
            const command = texts.length === content.right.length
              ? await slash(client, id, texts, () => lifetime.ensureOpen(client, id))
              : undefined
            if (command !== undefined) return command
            // Let go while unused: opened again, with whatever another process appended meanwhile.
            await lifetime.ensureOpen(client, id)
            await advertiseNow(client, id)
            for (const update of mcpServers.notices(id)) await client.notify("session/update", { sessionId: id, update })
            // A request cancelled by the client (or a closed connection) cancels the turn,
            // which then ends durably as cancelled.
            const onAbort = () => void runPromise(loop.cancel(SessionId.make(id)))
            signal.addEventListener("abort", onAbort, { once: true })
            const turn = run(runTurn(client, id, view, content.right))
            const settled = turn.catch(() => undefined)
            inFlight.set(id, settled)
            try {
              return await turn
            } finally {
              inFlight.delete(id)
              if (cancelling.get(id) === settled) cancelling.delete(id)
              signal.removeEventListener("abort", onAbort)
            }
          })
        })
        .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
          if (!sessions.has(params.sessionId)) {
            log(`session/cancel for ${params.sessionId}, which is not open on this connection: ignored`)
            return
          }
          const turn = inFlight.get(params.sessionId)
          if (turn !== undefined) cancelling.set(params.sessionId, turn)
          await runPromise(loop.cancel(SessionId.make(params.sessionId)))
        })

      const drained = async () => {
        await Promise.all([...inFlight.values()])
        await lifetime.shutdown()
        await mcpServers.closeAll()
        await runPromise(Effect.forEach([...sessions.keys()], detach))
      }
      /** Cancels every prompt in flight and waits until each has ended (durably) and been answered. */
      const cancelAll = async () => {
        const running = [...inFlight.keys()]
        if (running.length > 0) log(`stopping: cancelling the prompt${running.length === 1 ? "" : "s"} in flight`)
        await runPromise(
          Effect.forEach(running, (id) => loop.cancel(SessionId.make(id)), { concurrency: "unbounded" }),
        )
        await Promise.all([...inFlight.values()])
      }
      return { app: agentApp, drained, cancelAll }
    }

    /**
     * Serves one connection until the peer closes it, then waits for its turns
     * to end. Interrupted (the process was asked to stop: SIGINT, SIGTERM), it
     * first cancels the prompts in flight and answers each `cancelled` — an
     * editor that forwards Ctrl-C gets its answers — and only then closes.
     */
    const serve = (stream: acp.Stream): Effect.Effect<void> =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          const tracked = trackWrites(stream)
          const { app: agentApp, drained, cancelAll } = app()
          return { connection: agentApp.connect(tracked.stream), drained, cancelAll, written: tracked.written }
        }),
        ({ connection }) => Effect.promise(() => connection.closed),
        ({ cancelAll, connection, drained, written }, exit) =>
          Effect.promise(async () => {
            if (Exit.isInterrupted(exit)) {
              await cancelAll()
              await written()
            }
            connection.close()
            await drained()
          }),
      )

    return { app, serve } as const
  })
