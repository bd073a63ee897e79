/**
 * One MCP server for one session: the SDK client over its transport (a child
 * process over stdio, or an http/sse endpoint), opened and closed as a scoped
 * resource. It remembers whether the server went away on its own, so later
 * calls are answered at once with the reason instead of waiting on a dead pipe.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { Data, Duration, Effect, type Scope } from "effect"
import type * as ServerConfig from "../ServerConfig.js"

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

const transportFor = (sdk: Sdk, server: ServerConfig.Server, cwd: string): Transport => {
  const { SSEClientTransport, StdioClientTransport, StreamableHTTPClientTransport } = sdk
  if (server.type === "http" || server.type === "sse") {
    const requestInit = { headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])) }
    return server.type === "http"
      ? new StreamableHTTPClientTransport(new URL(server.url), { requestInit })
      : new SSEClientTransport(new URL(server.url), { requestInit })
  }
  return new StdioClientTransport({
    command: server.command,
    args: [...server.args],
    // Added to the SDK's small safe environment (PATH, HOME, …): provider keys never reach a server.
    env: Object.fromEntries(server.env.map((e) => [e.name, e.value])),
    cwd,
    stderr: "pipe",
  })
}

export const open = (server: ServerConfig.Server, options: Options): Effect.Effect<Connection, StartFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const sdk = yield* Effect.promise(loadSdk)
    const { Client, ErrorCode, McpError, StdioClientTransport } = sdk
    const transport = transportFor(sdk, server, options.cwd)
    let stderrTail = ""
    if (transport instanceof StdioClientTransport) {
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderrTail = (stderrTail + chunk.toString("utf8")).slice(-TAIL)
      })
    }
    const lastWords = () => {
      const line = stderrTail.trim().split("\n").pop()?.trim() ?? ""
      return line === "" ? "" : ` (its last words: ${line.length > 200 ? `${line.slice(0, 200)}…` : line})`
    }
    const client = new Client({ name: "turnlog", version: options.clientVersion }, { capabilities: {} })
    let closing = false
    let stopped: string | undefined
    let pid: number | undefined

    yield* Effect.acquireRelease(Effect.void, () =>
      Effect.promise(async () => {
        closing = true
        await client.close().catch(() => undefined)
        // A transport that never connected is not closed by the client.
        await transport.close().catch(() => undefined)
        if (pid !== undefined) options.track(pid, false)
      }))

    let connected = false
    client.onclose = () => {
      // Before it answered, the start's own failure says what happened.
      if (!connected || closing || stopped !== undefined) return
      stopped = `stopped unexpectedly${lastWords()}`
      // Its process id may be given to another process now: never signal it at exit.
      if (pid !== undefined) options.track(pid, false)
      options.log(`MCP server "${server.name}" ${stopped}; its tools fail from now on in this session`)
    }

    yield* Effect.tryPromise({
      try: () => client.connect(transport, { timeout: options.startTimeoutMs }),
      catch: (e) => new StartFailed({ server: server.name, detail: `${messageOf(e)}${lastWords()}` }),
    }).pipe(
      Effect.timeoutFail({
        duration: Duration.millis(options.startTimeoutMs),
        onTimeout: () => new StartFailed({ server: server.name, detail: `it did not answer within ${options.startTimeoutMs} ms` }),
      }),
    )
    connected = true
    // What a server says while starting (a banner) is not why it stops later.
    stderrTail = ""
    if (transport instanceof StdioClientTransport && transport.pid !== null) {
      pid = transport.pid
      options.track(pid, true)
    }

    const tools: Array<Tool> = []
    let cursor: string | undefined
    do {
      const page = yield* Effect.tryPromise({
        try: () => client.listTools(cursor === undefined ? {} : { cursor }, { timeout: options.startTimeoutMs }),
        catch: (e) => new StartFailed({ server: server.name, detail: `its tools could not be listed: ${messageOf(e)}` }),
      })
      tools.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor !== undefined)

    const call: Connection["call"] = (tool, args) =>
      Effect.suspend(() => {
        if (stopped !== undefined) return Effect.fail(new CallFailed({ reason: "stopped", detail: `the server ${stopped}` }))
        return Effect.tryPromise({
          // The SDK's own limit is a backstop; the Effect timeout below is the one that answers.
          try: (signal) =>
            client.callTool({ name: tool, arguments: args }, undefined, {
              signal,
              timeout: options.callTimeoutMs + 5_000,
            }) as Promise<CallResult>,
          catch: (e): CallFailed => {
            if (stopped !== undefined) return new CallFailed({ reason: "stopped", detail: `the server ${stopped}` })
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

    return { server, tools, pid, call } satisfies Connection
  })
