/**
 * One MCP server for one session: the SDK client over its transport (a child
 * process over stdio, or an http/sse endpoint), opened and closed as a scoped
 * resource. It remembers whether the server went away on its own, so later
 * calls are answered at once with the reason instead of waiting on a dead pipe.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { Data, Duration, Effect, type Scope } from "effect"
import type { Sandbox } from "@turnlog/agent"
import type * as ServerConfig from "../ServerConfig.js"
import * as ServerSandbox from "./ServerSandbox.js"

/** Why a server could not be used; `message` is the end of one sentence that names the server. */
export class StartFailed extends Data.TaggedError("StartFailed")<{ readonly server: string; readonly detail: string }> {}

export class CallFailed extends Data.TaggedError("CallFailed")<{
  readonly reason: "stopped" | "timeout" | "error"
  readonly detail: string
}> {}

export interface CallResult {
  readonly content?: unknown
  readonly structuredContent?: unknown
  readonly isError?: boolean
}

export interface Connection {
  readonly server: ServerConfig.Server
  readonly tools: ReadonlyArray<Tool>
  /** The server's process id (stdio servers). */
  readonly pid: number | undefined
  readonly call: (tool: string, args: Record<string, unknown>) => Effect.Effect<CallResult, CallFailed>
}

export interface Options {
  readonly cwd: string
  readonly clientVersion: string
  readonly startTimeoutMs: number
  readonly callTimeoutMs: number
  /** The sandbox a stdio server runs in; none: it runs as it is. */
  readonly sandbox: Sandbox.Sandbox | undefined
  readonly log: (line: string) => void
  /** Told of a child process's pid while it may be running (so the process can stop it at exit). */
  readonly track: (pid: number, running: boolean) => void
}

const TAIL = 2000

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

// The SDK (with its schema and validation libraries, hundreds of files) loads
// when a server is first opened: a session without MCP servers never pays for it.
const loadSdk = async () => {
  const [client, sse, stdio, http, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ])
  return {
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    ErrorCode: types.ErrorCode,
    McpError: types.McpError,
  }
}
type Sdk = Awaited<ReturnType<typeof loadSdk>>

const transportFor = (sdk: Sdk, server: ServerConfig.Server, options: Options): Transport => {
  const { SSEClientTransport, StdioClientTransport, StreamableHTTPClientTransport } = sdk
  if (server.type === "http" || server.type === "sse") {
    const requestInit = { headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])) }
    return server.type === "http"
      ? new StreamableHTTPClientTransport(new URL(server.url), { requestInit })
      : new SSEClientTransport(new URL(server.url), { requestInit })
  }
  const launch = ServerSandbox.launch(server, options.cwd, options.sandbox)
  return new StdioClientTransport({
    command: launch.command,
    args: [...launch.args],
    // Added to the SDK's small safe environment (PATH, HOME, …): provider keys never reach a server.
    env: Object.fromEntries(server.env.map((e) => [e.name, e.value])),
    cwd: options.cwd,
    stderr: "pipe",
  })
}

/** How the SDK's stdio transport says an answer outgrew its read buffer (it then closes the transport). */
const OVERSIZE = /ReadBuffer exceeded maximum size of (\d+) bytes/

const sizeOf = (bytes: number): string => bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`

/** One client over one transport: a server restarted after an oversized answer gets a new one. */
interface Link {
  readonly client: InstanceType<Sdk["Client"]>
  readonly transport: Transport
  pid: number | undefined
  connected: boolean
  /** Set when the transport gave up on an answer larger than its limit (in bytes). */
  oversize: number | undefined
}

export const open = (server: ServerConfig.Server, options: Options): Effect.Effect<Connection, StartFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const sdk = yield* Effect.promise(loadSdk)
    const { Client, ErrorCode, McpError, StdioClientTransport } = sdk
    let stderrTail = ""
    const lastWords = () => {
      const line = stderrTail.trim().split("\n").pop()?.trim() ?? ""
      return line === "" ? "" : ` (its last words: ${line.length > 200 ? `${line.slice(0, 200)}…` : line})`
    }
    let closing = false
    let stopped: string | undefined
    let link: Link | undefined
    /** Set while a new link is being made (after an oversized answer), so concurrent calls share it. */
    let relinking: Promise<Link> | undefined

    const connect = async (): Promise<Link> => {
      const transport = transportFor(sdk, server, options)
      stderrTail = ""
      if (transport instanceof StdioClientTransport) {
        transport.stderr?.on("data", (chunk: Buffer) => {
          stderrTail = (stderrTail + chunk.toString("utf8")).slice(-TAIL)
        })
      }
      const client = new Client({ name: "turnlog", version: options.clientVersion }, { capabilities: {} })
      const made: Link = { client, transport, pid: undefined, connected: false, oversize: undefined }
      link = made
      client.onerror = (error) => {
        const match = OVERSIZE.exec(messageOf(error))
        if (match !== null) made.oversize = Number(match[1])
      }
      client.onclose = () => {
        // Its process id may be given to another process now: never signal it at exit.
        if (made.pid !== undefined) options.track(made.pid, false)
        // Before it answered, the start's own failure says what happened.
        if (!made.connected || closing || stopped !== undefined || link !== made) return
        if (made.oversize !== undefined) {
          // The transport cannot read past the oversized answer; the next call starts the server anew.
          link = undefined
          return
        }
        stopped = `stopped unexpectedly${lastWords()}`
        options.log(`MCP server "${server.name}" ${stopped}; its tools fail from now on in this session`)
      }
      try {
        await client.connect(transport, { timeout: options.startTimeoutMs })
      } catch (error) {
        await transport.close().catch(() => undefined)
        throw error
      }
      made.connected = true
      // What a server says while starting (a banner) is not why it stops later.
      stderrTail = ""
      if (transport instanceof StdioClientTransport && transport.pid !== null) {
        made.pid = transport.pid
        options.track(made.pid, true)
      }
      return made
    }

    yield* Effect.acquireRelease(Effect.void, () =>
      Effect.promise(async () => {
        closing = true
        const last = link ?? (await relinking?.catch(() => undefined))
        if (last === undefined) return
        await last.client.close().catch(() => undefined)
        // A transport that never connected is not closed by the client.
        await last.transport.close().catch(() => undefined)
        if (last.pid !== undefined) options.track(last.pid, false)
      }))

    const first = yield* Effect.tryPromise({
      try: connect,
      catch: (e) => new StartFailed({ server: server.name, detail: `${messageOf(e)}${lastWords()}` }),
    }).pipe(
      Effect.timeoutFail({
        duration: Duration.millis(options.startTimeoutMs),
        onTimeout: () => new StartFailed({ server: server.name, detail: `it did not answer within ${options.startTimeoutMs} ms` }),
      }),
    )

    const tools: Array<Tool> = []
    let cursor: string | undefined
    do {
      const page = yield* Effect.tryPromise({
        try: () => first.client.listTools(cursor === undefined ? {} : { cursor }, { timeout: options.startTimeoutMs }),
        catch: (e) => new StartFailed({ server: server.name, detail: `its tools could not be listed: ${messageOf(e)}` }),
      })
      tools.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor !== undefined)

    /** The link to call on: the current one, or the server started anew after an oversized answer. */
    const current = (): Promise<Link> => {
      if (link !== undefined) return Promise.resolve(link)
      if (relinking === undefined) {
        relinking = connect().finally(() => {
          relinking = undefined
        })
      }
      return relinking
    }

    const stoppedFailure = () => new CallFailed({ reason: "stopped", detail: `the server ${stopped}` })

    const call: Connection["call"] = (tool, args) =>
      Effect.suspend(() => {
        if (stopped !== undefined) return Effect.fail(stoppedFailure())
        let used: Link | undefined
        return Effect.tryPromise({
          // The SDK's own limit is a backstop; the Effect timeout below is the one that answers.
          try: async (signal) => {
            try {
              used = await current()
            } catch (error) {
              stopped = `could not be started again: ${messageOf(error)}${lastWords()}`
              options.log(`MCP server "${server.name}" ${stopped}; its tools fail from now on in this session`)
              throw error
            }
            return (await used.client.callTool({ name: tool, arguments: args }, undefined, {
              signal,
              timeout: options.callTimeoutMs + 5_000,
            })) as CallResult
          },
          catch: (e): CallFailed => {
            if (used?.oversize !== undefined) {
              return new CallFailed({
                reason: "error",
                detail: `its answer was larger than the ${sizeOf(used.oversize)} an MCP answer may be; the server is started again for later calls`,
              })
            }
            if (stopped !== undefined) return stoppedFailure()
            if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
              return new CallFailed({ reason: "timeout", detail: messageOf(e) })
            }
            if (e instanceof McpError && e.code === ErrorCode.ConnectionClosed) {
              return new CallFailed({ reason: "stopped", detail: `the server stopped unexpectedly${lastWords()}` })
            }
            return new CallFailed({ reason: "error", detail: messageOf(e) })
          },
        }).pipe(
          Effect.timeoutFail({
            duration: Duration.millis(options.callTimeoutMs),
            onTimeout: () => new CallFailed({ reason: "timeout", detail: `no answer within ${options.callTimeoutMs} ms` }),
          }),
        )
      })

    return {
      server,
      tools,
      get pid() {
        return link?.pid ?? first.pid
      },
      call,
    } satisfies Connection
  })
