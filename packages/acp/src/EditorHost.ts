/**
 * The editor's file system and terminal, for the built-in tools of the
 * sessions it holds. An editor that says in `initialize` it can read text
 * files (`fs.readTextFile`), write them (`fs.writeTextFile`) or run commands
 * (`terminal`) is asked to: `read_file` then sees the unsaved buffer the user
 * sees, a write lands in the editor's buffer, and a command runs in the
 * editor's terminal, shown in the call as it runs. The tools confine each path
 * and ask each permission as they always do (`ToolHost`); a session whose
 * editor offers nothing is served by the disk and child processes.
 *
 * Like the permission questions, the hosts are one service built before any
 * client connects; the server attaches each session it creates or loads to its
 * connection here, with what that connection's client offered.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Context, Duration, Effect, Layer } from "effect"
import { ToolHost } from "@turnlog/agent"

/** What a command's terminal keeps: a bound on the editor's memory, far above what the model is shown. */
const OUTPUT_LIMIT_BYTES = 1024 * 1024

export interface Service {
  /** The session's tools work through `client` for what `capabilities` offer (nothing when absent). */
  readonly attach: (sessionId: string, client: acp.AgentContext, capabilities: acp.ClientCapabilities | undefined) => Effect.Effect<void>
  readonly detach: (sessionId: string) => Effect.Effect<void>
  /** The agent loop's view: the host of one call. */
  readonly hosts: ToolHost.Service
}

export class EditorHosts extends Context.Tag("@turnlog/acp/EditorHosts")<EditorHosts, Service>() {}

/** A client's error reply, or a closed connection, in its own words. */
const reasonOf = (error: unknown): string => {
  if (error instanceof Error) return error.message
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") return error.message
  return String(error)
}

const ask = <A>(request: () => Promise<A>): Effect.Effect<A, ToolHost.HostFailed> =>
  Effect.tryPromise({ try: request, catch: (error) => new ToolHost.HostFailed({ reason: reasonOf(error) }) })

/**
 * `terminal/create`, then `terminal/wait_for_exit` (or `terminal/kill` at the
 * timeout), `terminal/output`, and always `terminal/release` — after a
 * `terminal/kill` when the call is cancelled while the command runs.
 */
const runInTerminal = (
  client: acp.AgentContext,
  sessionId: string,
  request: ToolHost.CommandRequest,
  showTerminal: (terminalId: string) => Effect.Effect<void>,
): Effect.Effect<ToolHost.CommandOutcome, ToolHost.HostFailed> =>
  Effect.acquireUseRelease(
    ask(() => client.createTerminal({ sessionId, command: request.file, args: [...request.args], cwd: request.cwd, outputByteLimit: OUTPUT_LIMIT_BYTES })),
    (terminal) =>
      Effect.gen(function*() {
        yield* showTerminal(terminal.id)
        const exited = yield* ask(() => terminal.waitForExit()).pipe(
          Effect.timeoutTo({ duration: Duration.millis(request.timeoutMs), onTimeout: () => undefined, onSuccess: (status) => status }),
        )
        if (exited === undefined) yield* ask(() => terminal.kill())
        const shown = yield* ask(() => terminal.currentOutput())
        const status = exited ?? shown.exitStatus ?? {}
        return {
          exitCode: status.exitCode ?? null,
          signal: status.signal ?? null,
          output: shown.output,
          truncated: shown.truncated,
          timedOut: exited === undefined,
        }
      }),
    (terminal, exit) =>
      // A terminal that cannot be let go (the editor went away) has nothing more to say.
      Effect.ignore(
        Effect.zipRight(exit._tag === "Failure" ? ask(() => terminal.kill()) : Effect.void, ask(() => terminal.release())),
      ),
  )

export const make = (): Service => {
  const sessions = new Map<string, { readonly client: acp.AgentContext; readonly capabilities: acp.ClientCapabilities }>()
  return {
    attach: (sessionId, client, capabilities) =>
      Effect.sync(() => {
        if (capabilities === undefined) sessions.delete(sessionId)
        else sessions.set(sessionId, { client, capabilities })
      }),
    detach: (sessionId) => Effect.sync(() => void sessions.delete(sessionId)),
    hosts: {
      hostFor: ({ sessionId }, showTerminal) =>
        Effect.sync(() => {
          const held = sessions.get(sessionId)
          if (held === undefined) return undefined
          const { client, capabilities } = held
          const host: ToolHost.ToolHost = {
            name: "the editor",
            ...(capabilities.fs?.readTextFile === true
              ? { readTextFile: (path) => Effect.map(ask(() => client.request("fs/read_text_file", { sessionId, path })), (r) => r.content) }
              : {}),
            ...(capabilities.fs?.writeTextFile === true
              ? { writeTextFile: (path, content) => Effect.asVoid(ask(() => client.request("fs/write_text_file", { sessionId, path, content }))) }
              : {}),
            ...(capabilities.terminal === true ? { runCommand: (request) => runInTerminal(client, sessionId, request, showTerminal) } : {}),
          }
          return host.readTextFile === undefined && host.writeTextFile === undefined && host.runCommand === undefined ? undefined : host
        }),
    },
  }
}

/** The hosts, and the agent loop's `ToolHosts` answered by them. */
export const layer: Layer.Layer<EditorHosts | ToolHost.ToolHosts> = Layer.effect(
  ToolHost.ToolHosts,
  Effect.map(EditorHosts, (editor) => editor.hosts),
).pipe(Layer.provideMerge(Layer.sync(EditorHosts, make)))
