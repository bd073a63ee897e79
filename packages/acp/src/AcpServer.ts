/**
 * The Agent Client Protocol server: an editor drives the agent loop over one
 * connection (stdio for `turnlog acp`). Requests are translated to `AgentLoop`
 * calls; what the loop streams goes back as `session/update` notifications
 * before the request that caused it is answered. A bad request gets a JSON-RPC
 * error and the connection keeps serving. Besides prompts it serves the
 * session surface an editor uses: list, load, resume, close, the model as a
 * config option, standing permission answers and the `/doctor` command.
 */
import * as acp from "@agentclientprotocol/sdk"
import { Duration, Effect, Either, Exit, Option, Runtime } from "effect"
import { AgentLoop, Tools } from "@turnlog/agent"
import { McpServers } from "@turnlog/mcp"
import { SessionId } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store"
import { CallIds } from "./CallIds.js"
import * as Commands from "./Commands.js"
import * as Errors from "./Errors.js"
import { requireAbsolute, requireDirectory } from "./internal/Cwd.js"
import * as Lifetime from "./internal/Lifetime.js"
import * as PromptTurn from "./internal/PromptTurn.js"
import { describeRecovery } from "./internal/Recovery.js"
import * as Rules from "./internal/Rules.js"
import * as Runner from "./internal/Runner.js"
import { trackWrites } from "./internal/WriteTracker.js"
import * as ModelOption from "./ModelOption.js"
import * as SessionList from "./SessionList.js"
import * as SessionMcp from "./SessionMcp.js"
import { PermissionBridge, type Rule } from "./PermissionBridge.js"
import { toUserContent } from "./PromptContent.js"
import * as Updates from "./Updates.js"

export const PROTOCOL_VERSION = 1

export interface Options {
  /** Reported as `agentInfo.version`. */
  readonly version: string
  /** Where diagnostics go, one line each (default stderr: stdout is the protocol). */
  readonly log?: (line: string) => void
  /**
   * The `/doctor` command: a report on a stored session's replay health (the
   * command line's doctor, handed in by the caller). Without it no command is offered.
   */
  readonly doctor?: (session: SessionStore.LoadedSession) => string
  /**
   * The model routes a session may switch between (a session config option);
   * the first is the default. Without them no option is offered.
   */
  readonly models?: ReadonlyArray<string>
  /**
   * How long a session goes without a prompt before it is let go (its lease,
   * open files, the loop's hold and its MCP servers); its next prompt opens it
   * again, with whatever another process appended meanwhile. Default 120 s.
   */
  readonly idleRelease?: Duration.DurationInput
}

export const initializeResponse = (version: string): acp.InitializeResponse => ({
  protocolVersion: PROTOCOL_VERSION,
  agentInfo: { name: "turnlog", version },
  agentCapabilities: {
    loadSession: true,
    promptCapabilities: { image: false, audio: false, embeddedContext: true },
    sessionCapabilities: { list: {}, close: {}, resume: {} },
    mcpCapabilities: { http: true, sse: true },
  },
  authMethods: [],
})

const stderrLog = (line: string) => {
  process.stderr.write(`turnlog: ${line}\n`)
}

export const make = (options: Options) =>
  Effect.gen(function*() {
    const loop = yield* AgentLoop.AgentLoop
    const bridge = yield* PermissionBridge
    const tools = yield* Tools.Tools
    const callIds = yield* CallIds
    const store = yield* SessionStore.SessionStore
    const models = options.models ?? []
    // A session's model when it is not the default, by session id.
    const chosenModel = new Map<string, string>()
    const configOptions = (id: string) =>
      models.length === 0 ? {} : { configOptions: ModelOption.options(models, chosenModel.get(id) ?? models[0]!) }
    const mcp = yield* Effect.serviceOption(McpServers.McpServers)
    const runtime = yield* Effect.runtime<never>()
    const log = options.log ?? stderrLog

    const run = Runner.make(runtime, log)
    const idleAfter = Duration.decode(options.idleRelease ?? Duration.seconds(120))

    const reportMcp = (servers: ReadonlyArray<acp.McpServer>) => {
      if (servers.length > 0) {
        log(`MCP servers are accepted but not used yet: ${servers.map((s) => s.name).join(", ")}`)
      }
    }

    /** Attaches the session's permission questions to this client, showing each call as its tool_call did. */
    const attach = (
      client: acp.AgentContext,
      id: string,
      view: Updates.View,
      rules: ReadonlyArray<Rule> = [],
    ) =>
      bridge.attach(
        id,
        client,
        (question) =>
          Updates.describe(view, callIds.session(id).prepared.latest(question.callId), {
            name: question.tool,
            arguments: typeof question.input === "string" ? question.input : JSON.stringify(question.input) ?? "",
          }),
        rules,
      )

    const saveRules = Rules.saver({ bridge, store, loop, modelOf: (id) => chosenModel.get(id), log })

    /** A fresh agent app with this connection's state: open sessions and prompts in flight. */
    const app = (): {
      readonly app: acp.AgentApp
      readonly drained: () => Promise<void>
      readonly cancelAll: () => Promise<void>
    } => {
      const sessions = new Map<string, Updates.View>()
      const mcpServers = SessionMcp.make({ service: mcp, run: (effect) => run(effect), log })
      const inFlight = new Map<string, Promise<unknown>>()
      // Prompts in flight that session/cancel was sent for, until they answer.
      const cancelling = new Map<string, Promise<unknown>>()
      const lifetime = Lifetime.make(runtime, {
        loop,
        mcpServers,
        run,
        log,
        after: idleAfter,
        modelOf: (id) => chosenModel.get(id),
        reopened: async (client, id, loaded) => {
          for (const line of describeRecovery(id, loaded.recovery)) log(line)
          const view = sessions.get(id)
          if (view === undefined) return
          // Counted, not sent: calls another process made meanwhile are numbered as a reload would number them.
          callIds.forget(id)
          Updates.fromHistory(loaded.events, view, callIds.session(id).shown)
          await run(attach(client, id, view, Updates.rulesOf(loaded.events)))
        },
      })

      const notify = (client: acp.AgentContext, sessionId: string, update: acp.SessionUpdate) =>
        // A client that went away cannot be told; the turn still ends durably.
        Effect.promise(() => client.notify("session/update", { sessionId, update }).catch(() => undefined))

      // Sessions whose title the client was sent (session_info_update).
      const titled = new Set<string>()

      const sendTitle = (client: acp.AgentContext, id: string, title: string) =>
        title === "" || titled.has(id)
          ? Effect.void
          : Effect.zipRight(Effect.sync(() => titled.add(id)), notify(client, id, Updates.sessionInfo(title)))

      const runTurn = PromptTurn.make({ loop, callIds, log, notify, sendTitle, saveRules })

      /** session/load (the history replayed first) and session/resume (without it). */
      const open = async (
        client: acp.AgentContext,
        params: { readonly sessionId: string; readonly cwd: string; readonly mcpServers?: ReadonlyArray<acp.McpServer> },
        replay: boolean,
      ) => {
        requireAbsolute(params.cwd)
        if (inFlight.has(params.sessionId)) throw Errors.busy(params.sessionId)
        await lifetime.using(params.sessionId, async () => {
          const servers = await mcpServers.start(params.mcpServers ?? [], params.cwd)
          const loaded = await servers.use(
            (tools) => run(loop.load(SessionId.make(params.sessionId), tools).pipe(Effect.mapError(Errors.fromAgentError))),
            () => params.sessionId,
          )
          // Opened again, the session talks to the default model.
          chosenModel.delete(params.sessionId)
          if (Option.isNone(mcp)) reportMcp(params.mcpServers ?? [])
          for (const line of describeRecovery(params.sessionId, loaded.recovery)) log(line)
          const cwd = loaded.header.cwd
          if (cwd !== params.cwd) log(`session ${params.sessionId} runs in ${cwd}, its cwd when it was created`)
          const view: Updates.View = { cwd, tools }
          callIds.forget(params.sessionId)
          titled.delete(params.sessionId)
          // Counted even when not replayed: later calls get ids no earlier call had.
          const history = Updates.fromHistory(loaded.events, view, callIds.session(params.sessionId).shown)
          if (replay) {
            for (const update of history) await client.notify("session/update", { sessionId: params.sessionId, update })
          }
          await run(sendTitle(client, params.sessionId, loaded.header.title ?? Updates.historyTitle(loaded.events)))
          sessions.set(params.sessionId, view)
          await run(attach(client, params.sessionId, view, Updates.rulesOf(loaded.events)))
          // The client named this session, so it may hear of its commands before the answer,
          // as it hears the replayed history: nothing is left to write once it has the answer.
          if (options.doctor !== undefined) {
            unadvertised.add(params.sessionId)
            await advertiseNow(client, params.sessionId)
          }
          lifetime.opened(params.sessionId, params.mcpServers ?? [], params.cwd)
        })
      }

      /** The session's slash commands, sent once the client knows the session (after the answer). */
      const advertise = (client: acp.AgentContext, id: string) => {
        if (options.doctor === undefined) return
        unadvertised.add(id)
        setImmediate(() => void advertiseNow(client, id))
      }
      // Sessions whose commands are not sent yet. A prompt that arrives first sends
      // them before anything of its own, so the order a client sees never varies.
      const unadvertised = new Set<string>()
      const advertiseNow = async (client: acp.AgentContext, id: string) => {
        if (!unadvertised.delete(id)) return
        await Runtime.runPromise(runtime)(notify(client, id, Commands.available))
      }

      const agentApp = acp.agent({ name: "turnlog" })
        .onRequest(acp.methods.agent.initialize, () => initializeResponse(options.version))
        .onRequest(acp.methods.agent.session.new, async ({ client, params }) => {
          requireDirectory(params.cwd)
          const servers = await mcpServers.start(params.mcpServers, params.cwd)
          const id = await servers.use(
            (tools) => run(loop.createSession({ cwd: params.cwd, ...tools }).pipe(Effect.mapError(Errors.fromAgentError))),
            (id) => id,
          )
          if (Option.isNone(mcp)) reportMcp(params.mcpServers)
          const view: Updates.View = { cwd: params.cwd, tools }
          callIds.forget(id)
          titled.delete(id)
          sessions.set(id, view)
          await lifetime.using(id, async () => {
            await run(attach(client, id, view))
            lifetime.opened(id, params.mcpServers, params.cwd)
          })
          chosenModel.delete(id)
          advertise(client, id)
          return { sessionId: id, ...configOptions(id) }
        })
        .onRequest(acp.methods.agent.session.load, async ({ client, params }) => {
          await open(client, params, true)
          return configOptions(params.sessionId)
        })
        .onRequest(acp.methods.agent.session.resume, async ({ client, params }) => {
          await open(client, params, false)
          return configOptions(params.sessionId)
        })
        .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
          const id = params.sessionId
          if (!sessions.has(id)) throw Errors.unknownSession(id)
          if (params.configId !== ModelOption.ID || models.length === 0) {
            throw Errors.invalidParams(`unknown config option "${params.configId}"`)
          }
          const value = params.value
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
          return { configOptions: ModelOption.options(models, value) }
        })
        .onRequest(acp.methods.agent.session.list, async ({ params }) => {
          const listed = await run(
            store.list().pipe(Effect.mapError((e) => Errors.fromAgentError(e))),
          )
          if (listed.unreadable.length > 0) {
            log(`session/list: ${listed.unreadable.length} stored session(s) cannot be read and are not listed (see: turnlog doctor)`)
          }
          const page = SessionList.page(listed.sessions, params)
          if (Either.isLeft(page)) throw Errors.invalidParams(page.left)
          return page.right
        })
        .onRequest(acp.methods.agent.session.close, async ({ params }) => {
          const id = params.sessionId
          if (!sessions.has(id)) throw Errors.unknownSession(id)
          // A prompt in flight ends as cancelled (and is answered) before the session is let go.
          await Runtime.runPromise(runtime)(loop.cancel(SessionId.make(id)))
          await inFlight.get(id)
          await lifetime.closed(id)
          sessions.delete(id)
          titled.delete(id)
          callIds.forget(id)
          await mcpServers.close(id)
          await run(
            bridge.detach(id).pipe(
              Effect.zipRight(loop.release(SessionId.make(id))),
              Effect.mapError(Errors.fromAgentError),
            ),
          )
          return {}
        })
        .onRequest(acp.methods.agent.session.prompt, async ({ client, params, signal }) => {
          const id = params.sessionId
          const view = sessions.get(id)
          if (view === undefined) throw Errors.unknownSession(id)
          // A prompt sent right after session/cancel waits for the cancelled turn to close.
          const cancelled = cancelling.get(id)
          if (cancelled !== undefined) await cancelled
          if (inFlight.has(id)) throw Errors.busy(id)
          const content = toUserContent(params.prompt)
          if (Either.isLeft(content)) throw Errors.invalidParams(content.left)
          return lifetime.using(id, async () => {
            if (options.doctor !== undefined && Commands.isDoctor(content.right)) {
              const report = options.doctor(await run(store.read(SessionId.make(id)).pipe(Effect.mapError(Errors.fromAgentError))))
              await run(notify(client, id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: report } }))
              return { stopReason: "end_turn" }
            }
            // Let go while unused: opened again, with whatever another process appended meanwhile.
            await lifetime.ensureOpen(client, id)
            if (options.doctor !== undefined && Commands.isCompact(content.right)) {
              const text = await run(loop.compact(SessionId.make(id)).pipe(
                Effect.map(Commands.compacted),
                Effect.catchTag("CompactionFailed", (e) => Effect.succeed(`Not compacted: ${e.message}`)),
                Effect.mapError(Errors.fromAgentError),
              ))
              await run(notify(client, id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } }))
              return { stopReason: "end_turn" }
            }
            await advertiseNow(client, id)
            for (const update of mcpServers.notices(id)) await client.notify("session/update", { sessionId: id, update })
            // A request cancelled by the client (or a closed connection) cancels the turn,
            // which then ends durably as cancelled.
            const onAbort = () => void Runtime.runPromise(runtime)(loop.cancel(SessionId.make(id)))
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
          await Runtime.runPromise(runtime)(loop.cancel(SessionId.make(params.sessionId)))
        })

      const drained = async () => {
        await Promise.all([...inFlight.values()])
        await lifetime.shutdown()
        await mcpServers.closeAll()
        await Runtime.runPromise(runtime)(Effect.forEach([...sessions.keys()], (id) => bridge.detach(id)))
      }
      /** Cancels every prompt in flight and waits until each has ended (durably) and been answered. */
      const cancelAll = async () => {
        const running = [...inFlight.keys()]
        if (running.length > 0) log(`stopping: cancelling the prompt${running.length === 1 ? "" : "s"} in flight`)
        await Runtime.runPromise(runtime)(
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
