/**
 * The Agent Client Protocol server: an editor drives the agent loop over one
 * connection (stdio for `turnlog acp`). Requests are translated to `AgentLoop`
 * calls; what the loop streams goes back as `session/update` notifications
 * before the request that caused it is answered. A bad request gets a JSON-RPC
 * error and the connection keeps serving. Besides prompts it serves the
 * session surface an editor uses: list, load, resume, close, the model as a
 * config option, standing permission answers and the `/doctor` command. A
 * session no prompt uses for a while is let go and opened again by its next
 * prompt (`internal/Lifetime.ts`). Here the server's services and each
 * connection's state are gathered and handed to the request handlers (one
 * module per request, or per pair of related ones, in `internal/handlers/`);
 * the other pieces live in `internal/`.
 */
import * as acp from "@agentclientprotocol/sdk"
import { Duration, Effect, Exit, Option, Runtime } from "effect"
import { AgentLoop, Tools } from "@turnlog/agent"
import { McpServers } from "@turnlog/mcp"
import { SessionStore } from "@turnlog/store"
import { CallIds } from "./CallIds.js"
import * as Commands from "./Commands.js"
import { EditorHosts } from "./EditorHost.js"
import * as Errors from "./Errors.js"
import * as Advertise from "./internal/Advertise.js"
import * as Attach from "./internal/Attach.js"
import * as Connection from "./internal/Connection.js"
import * as Drain from "./internal/Drain.js"
import * as ForkDelete from "./internal/ForkDelete.js"
import * as Cancel from "./internal/handlers/Cancel.js"
import * as CloseSession from "./internal/handlers/CloseSession.js"
import * as ConfigOption from "./internal/handlers/ConfigOption.js"
import type { Deps } from "./internal/handlers/Deps.js"
import * as ForkDeleteHandlers from "./internal/handlers/ForkDelete.js"
import * as Handshake from "./internal/handlers/Handshake.js"
import * as ListSessions from "./internal/handlers/ListSessions.js"
import * as NewSession from "./internal/handlers/NewSession.js"
import * as OpenSession from "./internal/handlers/OpenSession.js"
import * as Prompt from "./internal/handlers/Prompt.js"
import * as SetMode from "./internal/handlers/SetMode.js"
import * as Lifetime from "./internal/Lifetime.js"
import * as Open from "./internal/Open.js"
import * as Runner from "./internal/Runner.js"
import type { Options } from "./internal/ServerOptions.js"
import * as Settings from "./internal/Settings.js"
import * as Titles from "./internal/Titles.js"
import { trackWrites } from "./internal/WriteTracker.js"
import * as ModelOption from "./ModelOption.js"
import { PermissionBridge } from "./PermissionBridge.js"
import * as Rules from "./Rules.js"
import * as SessionMcp from "./SessionMcp.js"

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
    const mcp = yield* Effect.serviceOption(McpServers.McpServers)
    const runtime = yield* Effect.runtime<never>()
    const log = options.log ?? stderrLog
    // Kept for every connection the server serves.
    const settings = Settings.make(options.models ?? [], (route) => loop.reasons(route))

    const run = Runner.make(runtime, log)
    const runPromise = Runtime.runPromise(runtime)
    const idleAfter = Duration.decode(options.idleRelease ?? Duration.seconds(120))
    const shared = {
      options,
      loop,
      store,
      tools,
      callIds,
      run,
      runPromise,
      log,
      settings,
      detach: Attach.detacher(bridge, editorHosts),
      saveRules: Rules.saver({ bridge, store, loop, modelOf: settings.modelOf, log }),
      requireModel: async () => {
        const why = await options.auth?.missing()
        if (why !== undefined) throw Errors.authRequired(why)
      },
      reportMcp: (servers) => {
        if (Option.isNone(mcp) && servers.length > 0) log(`MCP servers are accepted but not used yet: ${servers.map((s) => s.name).join(", ")}`)
      },
    } satisfies Partial<Deps>

    /** A fresh agent app with this connection's state: open sessions and prompts in flight. */
    const app = (): {
      readonly app: acp.AgentApp
      readonly drained: () => Promise<void>
      readonly cancelAll: () => Promise<void>
    } => {
      const connection = Connection.make()
      const attach = Attach.attacher(bridge, callIds, editorHosts, connection.clientOffers)
      const mcpServers = SessionMcp.make({ service: mcp, run: (effect) => run(effect), log, configured: options.mcpServers ?? [] })
      const lifetime = Lifetime.make(runtime, {
        loop,
        mcpServers,
        run,
        log,
        after: idleAfter,
        modelOf: settings.modelOf,
        reopened: Open.reopened({ connection, callIds, attach, log, run }),
      })
      const deps: Deps = {
        ...shared,
        connection,
        lifetime,
        mcpServers,
        attach,
        sendTitle: Titles.sender(connection.titled),
        advertiser: Advertise.make(options.doctor !== undefined, (client, id) => runPromise(Titles.notify(client, id, Commands.available))),
      }

      const open = OpenSession.opener(deps)
      const close = CloseSession.closer(deps)
      const lifecycle = ForkDelete.make({ store, run, connection, close, open: (client, params) => open(client, params, false) })

      const agentApp = acp.agent({ name: "turnlog" })
        .onRequest(acp.methods.agent.initialize, Handshake.initialize(deps))
        .onRequest(acp.methods.agent.authenticate, Handshake.authenticate(deps))
        .onRequest(acp.methods.agent.session.new, NewSession.handler(deps))
        .onRequest(acp.methods.agent.session.load, OpenSession.load(deps, open))
        .onRequest(acp.methods.agent.session.resume, OpenSession.resume(deps, open))
        .onRequest(acp.methods.agent.session.setConfigOption, ConfigOption.setConfigOption(deps))
        // The older way some clients still choose a model (`models` in the session answers).
        .onRequest(ModelOption.SET_MODEL, ModelOption.parseSetModel, ConfigOption.setModel(deps))
        .onRequest(acp.methods.agent.session.setMode, SetMode.handler(deps))
        .onRequest(acp.methods.agent.session.list, ListSessions.handler(deps))
        .onRequest(acp.methods.agent.session.close, CloseSession.handler(close))
        .onRequest(acp.methods.agent.session.delete, ForkDeleteHandlers.remove(lifecycle))
        // Unstable in the protocol (`sessionCapabilities.fork`): the session copied up to its last ended turn.
        .onRequest(ForkDelete.FORK, ForkDelete.parseFork, ForkDeleteHandlers.fork(deps, lifecycle))
        .onRequest(acp.methods.agent.session.prompt, Prompt.handler(deps))
        .onNotification(acp.methods.agent.session.cancel, Cancel.handler(deps))

      return { app: agentApp, ...Drain.make(deps) }
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
          const { app: agentApp, cancelAll, drained } = app()
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
