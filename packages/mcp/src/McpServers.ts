/**
 * The MCP servers of a session, as a service: `start` connects to each
 * server (a child process over stdio, an http or sse endpoint), lists its
 * tools and returns them as tools for the agent's registry, named
 * `<server>__<tool>`. Servers live in the caller's scope — closing it (the
 * session closed, released, the process ending) stops them — and any still
 * running when the process exits are killed, so none is left behind.
 *
 * A server that cannot be started does not stop the others or the session:
 * it is reported as one sentence naming it, and its tools are absent.
 */
import { Context, Effect, Either, ExecutionStrategy, Exit, Layer, Scope } from "effect"
import type { Sandbox, Tools } from "@turnlog/agent"
import * as Connection from "./internal/Connection.js"
import * as ServerSandbox from "./internal/ServerSandbox.js"
import * as McpTool from "./McpTool.js"
import * as Naming from "./Naming.js"
import type * as ServerConfig from "./ServerConfig.js"

export interface Options {
  /** How long a call may go unanswered before it is cancelled and fails (default 120000). */
  readonly callTimeoutMs?: number
  /** How long a server may take to start and list its tools (default 60000: `npx` may download it first). */
  readonly startTimeoutMs?: number
  /** Sent to servers as the client's version. */
  readonly clientVersion?: string
  /**
   * Whether stdio servers run in the sandbox `run_command` uses (see `Sandbox`
   * in `@turnlog/agent`): `auto` (the default) where one works, `off`, or
   * `require` (a stdio server is not started where none works).
   */
  readonly sandbox?: Sandbox.Mode
  /** Where `bwrap` is looked for (default this process's PATH). */
  readonly sandboxPath?: string
  /** Where notes go, one line each (default stderr: stdout may be a protocol's). */
  readonly log?: (line: string) => void
}

/** A server that could not be started, said in one sentence that names it. */
export interface StartFailure {
  readonly server: string
  readonly message: string
}

export interface Started {
  /** The tools of the servers that started, in the servers' order. */
  readonly tools: ReadonlyArray<Tools.Tool>
  readonly failures: ReadonlyArray<StartFailure>
  /** Each started server, with its process id (stdio) and the names its tools were given. */
  readonly servers: ReadonlyArray<{ readonly name: string; readonly pid?: number; readonly tools: ReadonlyArray<string> }>
}

export interface Service {
  /** Starts `servers` for a session working in `cwd`; they stop when the scope closes. */
  readonly start: (
    servers: ReadonlyArray<ServerConfig.Server>,
    context: { readonly cwd: string },
  ) => Effect.Effect<Started, never, Scope.Scope>
}

export class McpServers extends Context.Tag("@turnlog/mcp/McpServers")<McpServers, Service>() {}

const stderrLog = (line: string) => {
  process.stderr.write(`turnlog: ${line}\n`)
}

export const make = (options: Options = {}): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function*() {
    const callTimeoutMs = options.callTimeoutMs ?? 120_000
    const log = options.log ?? stderrLog
    const running = new Set<number>()
    // The last resort: a process that exits without closing its scopes still stops its servers.
    const onExit = () => {
      for (const pid of running) {
        try {
          process.kill(pid, "SIGTERM")
        } catch {
          // already gone
        }
      }
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => process.on("exit", onExit)),
      () => Effect.sync(() => process.off("exit", onExit)),
    )
    const connectionOptions: Connection.Options = {
      cwd: "",
      clientVersion: options.clientVersion ?? "0.0.0",
      startTimeoutMs: options.startTimeoutMs ?? 60_000,
      callTimeoutMs,
      sandbox: undefined,
      log,
      track: (pid, alive) => {
        if (alive) running.add(pid)
        else running.delete(pid)
      },
    }

    /** One server in a scope of its own, so one that fails to start is stopped at once. */
    const openOne = (server: ServerConfig.Server, cwd: string) =>
      Effect.gen(function*() {
        const sandbox = server.type === "http" || server.type === "sse"
          ? undefined
          : yield* Effect.promise(() => ServerSandbox.resolve(options.sandbox ?? "auto", options.sandboxPath ?? process.env.PATH))
        if (sandbox === ServerSandbox.REQUIRED) {
          return Either.left(new Connection.StartFailed({ server: server.name, detail: sandbox }))
        }
        const parent = yield* Effect.scope
        const own = yield* Scope.fork(parent, ExecutionStrategy.sequential)
        return yield* Connection.open(server, { ...connectionOptions, cwd, sandbox }).pipe(
          Scope.extend(own),
          Effect.tapError(() => Scope.close(own, Exit.void)),
          Effect.either,
        )
      })

    const start: Service["start"] = (servers, context) =>
      Effect.gen(function*() {
        const opened = yield* Effect.forEach(servers, (server) => openOne(server, context.cwd), {
          concurrency: "unbounded",
        })
        const taken = new Set<string>()
        const tools: Array<Tools.Tool> = []
        const failures: Array<StartFailure> = []
        const started: Array<Started["servers"][number]> = []
        for (const result of opened) {
          if (result._tag === "Left") {
            const message = `MCP server "${result.left.server}" could not be started: ${result.left.detail}; its tools are not available in this session`
            log(message)
            failures.push({ server: result.left.server, message })
            continue
          }
          const connection = result.right
          const names: Array<string> = []
          for (const spec of connection.tools) {
            const name = Naming.unique(connection.server.name, spec.name, taken)
            names.push(name)
            tools.push(McpTool.make(connection, spec, name, callTimeoutMs))
          }
          started.push({
            name: connection.server.name,
            ...(connection.pid === undefined ? {} : { pid: connection.pid }),
            tools: names,
          })
        }
        return { tools, failures, servers: started }
      })

    return { start } satisfies Service
  })

export const layer = (options: Options = {}): Layer.Layer<McpServers> => Layer.scoped(McpServers, make(options))
