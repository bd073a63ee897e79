/**
 * The Agent Client Protocol server: an editor drives the agent loop over one
 * connection (stdio for `turnlog acp`). Requests are translated to `AgentLoop`
 * calls; what the loop streams goes back as `session/update` notifications
 * before the request that caused it is answered. A bad request gets a JSON-RPC
 * error and the connection keeps serving.
 */
import { isAbsolute } from "node:path"
import * as acp from "@agentclientprotocol/sdk"
import { Cause, Effect, Either, Exit, Option, Runtime, Stream } from "effect"
import { AgentLoop } from "@turnlog/agent"
import { McpServers } from "@turnlog/mcp"
import { SessionId, type TextBlock } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"
import * as Errors from "./Errors.js"
import * as SessionMcp from "./SessionMcp.js"
import { PermissionBridge } from "./PermissionBridge.js"
import { toUserContent } from "./PromptContent.js"
import * as Updates from "./Updates.js"

export const PROTOCOL_VERSION = 1

export interface Options {
  /** Reported as `agentInfo.version`. */
  readonly version: string
  /** Where diagnostics go, one line each (default stderr: stdout is the protocol). */
  readonly log?: (line: string) => void
}

export const initializeResponse = (version: string): acp.InitializeResponse => ({
  protocolVersion: PROTOCOL_VERSION,
  agentInfo: { name: "turnlog", version },
  agentCapabilities: {
    loadSession: true,
    promptCapabilities: { image: false, audio: false, embeddedContext: true },
    mcpCapabilities: { http: true, sse: true },
  },
  authMethods: [],
})

/** One open connection; `drained` resolves once every prompt it started has ended. */
export interface Connection {
  readonly connection: acp.AgentConnection
  readonly drained: () => Promise<void>
}

type TurnEnd = Extract<AgentLoop.AgentUpdate, { readonly type: "turn-end" }>

const stderrLog = (line: string) => {
  process.stderr.write(`turnlog: ${line}\n`)
}

const describeRecovery = (id: string, recovery: SessionStore.Recovery): Array<string> => {
  const lines: Array<string> = []
  if (recovery.tornTail !== undefined) {
    const where = recovery.tornTail.sidecar === undefined ? "" : `, kept in ${recovery.tornTail.sidecar}`
    lines.push(
      `session ${id}: a torn tail of ${recovery.tornTail.bytes} bytes at line ${recovery.tornTail.line} was cut off${where}`,
    )
  }
  if (recovery.closedTurn !== undefined && recovery.closedTurn.length > 0) {
    lines.push(`session ${id}: a turn left open by a stopped process was closed as interrupted`)
  }
  return lines
}

export const make = (options: Options) =>
  Effect.gen(function*() {
    const loop = yield* AgentLoop.AgentLoop
    const bridge = yield* PermissionBridge
    const mcp = yield* Effect.serviceOption(McpServers.McpServers)
    const runtime = yield* Effect.runtime<never>()
    const log = options.log ?? stderrLog

    /** Runs an Effect for a handler: its typed failure is thrown as the JSON-RPC error. */
    const run = async <A>(effect: Effect.Effect<A, acp.RequestError>, signal?: AbortSignal): Promise<A> => {
      const exit = await Runtime.runPromiseExit(runtime)(effect, signal === undefined ? undefined : { signal })
      if (Exit.isSuccess(exit)) return exit.value
      const failure = Cause.failureOption(exit.cause)
      if (Option.isSome(failure)) throw failure.value
      // The editor gets one line; the whole cause (stack included) goes to the log.
      const squashed = Cause.squash(exit.cause)
      log(`internal error: ${Cause.pretty(exit.cause)}`)
      throw new acp.RequestError(-32603, `internal error: ${squashed instanceof Error ? squashed.message : String(squashed)}`)
    }

    const reportMcp = (servers: ReadonlyArray<acp.McpServer>) => {
      if (servers.length > 0) {
        log(`MCP servers are accepted but not used yet: ${servers.map((s) => s.name).join(", ")}`)
      }
    }

    const requireAbsolute = (cwd: string) => {
      if (!isAbsolute(cwd)) throw Errors.invalidParams(`cwd must be an absolute path, got "${cwd}"`)
    }

    /** A fresh agent app with this connection's state: open sessions and prompts in flight. */
    const app = (): { readonly app: acp.AgentApp; readonly drained: () => Promise<void> } => {
      const sessions = new Map<string, string>() // id → the session's cwd
      const mcpServers = SessionMcp.make({ service: mcp, run: (effect) => run(effect), log })
      const inFlight = new Map<string, Promise<unknown>>()
      // Prompts in flight that session/cancel was sent for, until they answer.
      const cancelling = new Map<string, Promise<unknown>>()

      const notify = (client: acp.AgentContext, sessionId: string, update: acp.SessionUpdate) =>
        // A client that went away cannot be told; the turn still ends durably.
        Effect.promise(() => client.notify("session/update", { sessionId, update }).catch(() => undefined))

      const runTurn = (client: acp.AgentContext, id: string, cwd: string, content: ReadonlyArray<TextBlock>) =>
        loop.prompt(SessionId.make(id), content).pipe(
          Stream.runFoldEffect(undefined as TurnEnd | undefined, (end, update) => {
            if (update.type === "turn-end") return Effect.succeed(update)
            if (update.type === "retry") {
              log(
                `session ${id}: provider failed (${update.failure.code}: ${update.failure.message}); retry ${update.attempt} in ${update.delayMs} ms`,
              )
            }
            const shown = Updates.fromAgentUpdate(update, cwd)
            return shown === undefined ? Effect.succeed(end) : Effect.as(notify(client, id, shown), end)
          }),
          Effect.mapError(Errors.fromAgentError),
          Effect.flatMap((end): Effect.Effect<acp.PromptResponse, acp.RequestError> => {
            if (end === undefined) return Effect.fail(Errors.turnFailed(undefined))
            if (end.reason === "error") {
              log(`session ${id}: turn failed: ${end.failure?.message ?? "no cause reported"}`)
              return Effect.fail(Errors.turnFailed(end.failure))
            }
            return Effect.succeed({ stopReason: Updates.stopReason(end.reason) })
          }),
        )

      const agentApp = acp.agent({ name: "turnlog" })
        .onRequest(acp.methods.agent.initialize, () => initializeResponse(options.version))
        .onRequest(acp.methods.agent.session.new, async ({ client, params }) => {
          requireAbsolute(params.cwd)
          const servers = await mcpServers.start(params.mcpServers, params.cwd)
          const id = await servers.use(
            (tools) => run(loop.createSession({ cwd: params.cwd, ...tools }).pipe(Effect.mapError(Errors.fromAgentError))),
            (id) => id,
          )
          if (Option.isNone(mcp)) reportMcp(params.mcpServers)
          sessions.set(id, params.cwd)
          await run(bridge.attach(id, client))
          return { sessionId: id }
        })
        .onRequest(acp.methods.agent.session.load, async ({ client, params }) => {
          requireAbsolute(params.cwd)
          if (inFlight.has(params.sessionId)) throw Errors.busy(params.sessionId)
          const servers = await mcpServers.start(params.mcpServers, params.cwd)
          const loaded = await servers.use(
            (tools) => run(loop.load(SessionId.make(params.sessionId), tools).pipe(Effect.mapError(Errors.fromAgentError))),
            () => params.sessionId,
          )
          if (Option.isNone(mcp)) reportMcp(params.mcpServers)
          for (const line of describeRecovery(params.sessionId, loaded.recovery)) log(line)
          const cwd = loaded.header.cwd
          if (cwd !== params.cwd) log(`session ${params.sessionId} runs in ${cwd}, its cwd when it was created`)
          for (const update of Updates.fromHistory(loaded.events, cwd)) {
            await client.notify("session/update", { sessionId: params.sessionId, update })
          }
          sessions.set(params.sessionId, cwd)
          await run(bridge.attach(params.sessionId, client))
          return {}
        })
        .onRequest(acp.methods.agent.session.prompt, async ({ client, params, signal }) => {
          const id = params.sessionId
          const cwd = sessions.get(id)
          if (cwd === undefined) throw Errors.unknownSession(id)
          // A prompt sent right after session/cancel waits for the cancelled turn to close.
          const cancelled = cancelling.get(id)
          if (cancelled !== undefined) await cancelled
          if (inFlight.has(id)) throw Errors.busy(id)
          const content = toUserContent(params.prompt)
          if (Either.isLeft(content)) throw Errors.invalidParams(content.left)
          for (const update of mcpServers.notices(id)) await client.notify("session/update", { sessionId: id, update })
          // A request cancelled by the client (or a closed connection) cancels the turn,
          // which then ends durably as cancelled.
          const onAbort = () => void Runtime.runPromise(runtime)(loop.cancel(SessionId.make(id)))
          signal.addEventListener("abort", onAbort, { once: true })
          const turn = run(runTurn(client, id, cwd, content.right))
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
        await mcpServers.closeAll()
        await Runtime.runPromise(runtime)(Effect.forEach([...sessions.keys()], (id) => bridge.detach(id)))
      }
      return { app: agentApp, drained }
    }

    /** Serves one connection until the peer closes it, then waits for its turns to end. */
    const serve = (stream: acp.Stream): Effect.Effect<void> =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          const { app: agentApp, drained } = app()
          return { connection: agentApp.connect(stream), drained } satisfies Connection
        }),
        ({ connection }) => Effect.promise(() => connection.closed),
        ({ connection, drained }) =>
          Effect.promise(async () => {
            connection.close()
            await drained()
          }),
      )

    return { app, serve } as const
  })
