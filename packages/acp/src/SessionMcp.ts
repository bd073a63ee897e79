/**
 * The MCP servers an editor gives `session/new` and `session/load`, with the
 * config file's (names de-duplicated, the editor's server winning), for one
 * connection: started before the session is made or opened (their tools join
 * it), owned by the session from then on, and stopped when it is loaded again
 * with other servers, when the connection ends, or when it is closed. A server
 * that cannot start is said once to the user — in the session, before the
 * next prompt's answer — as well as on stderr.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Effect, Exit, Option, ParseResult, Schema, Scope } from "effect"
import type { Tools } from "@turnlog/agent"
import { type McpServers, ServerConfig } from "@turnlog/mcp"
import * as Errors from "./Errors.js"

export interface Options {
  readonly service: Option.Option<McpServers.Service>
  readonly run: <A>(effect: Effect.Effect<A, acp.RequestError>) => Promise<A>
  readonly log: (line: string) => void
  /** The config file's servers, started for every session beside the editor's (an editor's server of the same name wins). */
  readonly configured?: ReadonlyArray<ServerConfig.Server>
}

/** The config's servers and the editor's as one list: names once, the editor's server where both name one. */
export const merged = (
  configured: ReadonlyArray<ServerConfig.Server>,
  editor: ReadonlyArray<ServerConfig.Server>,
): ReadonlyArray<ServerConfig.Server> => {
  const named = new Set(editor.map((s) => s.name))
  return [...configured.filter((s) => !named.has(s.name)), ...editor]
}

/** What `createSession`/`load` get: the servers' tools, or nothing when the service is absent. */
export type SessionTools = { readonly tools?: ReadonlyArray<Tools.Tool> }

export interface Started {
  /**
   * Runs the session's create or load with the servers' tools; once it succeeds
   * the servers belong to the session `sessionOf` names, and if it fails they stop.
   */
  readonly use: <A>(f: (tools: SessionTools) => Promise<A>, sessionOf: (a: A) => string) => Promise<A>
}

const decode = Schema.decodeUnknownEither(ServerConfig.Servers)

export const make = (options: Options) => {
  const scopes = new Map<string, Scope.CloseableScope>()
  const pending = new Map<string, ReadonlyArray<acp.SessionUpdate>>()

  const closeScope = (scope: Scope.CloseableScope) => options.run(Scope.close(scope, Exit.void))

  const close = async (sessionId: string) => {
    const scope = scopes.get(sessionId)
    scopes.delete(sessionId)
    pending.delete(sessionId)
    if (scope !== undefined) await closeScope(scope)
  }

  const start = async (servers: ReadonlyArray<acp.McpServer>, cwd: string): Promise<Started> => {
    if (Option.isNone(options.service)) return { use: (f) => f({}) }
    const service = options.service.value
    const decoded = decode(servers)
    if (decoded._tag === "Left") {
      const issues = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
      throw Errors.invalidParams(
        `mcpServers: ${issues.map((i) => (i.path.length === 0 ? i.message : `${i.path.join(".")}: ${i.message}`)).join("; ")}`,
      )
    }
    const scope = await options.run(Scope.make())
    const all = merged(options.configured ?? [], decoded.right)
    const started = await options.run(Scope.extend(service.start(all, { cwd }), scope))
    return {
      use: async (f, sessionOf) => {
        let result
        try {
          result = await f({ tools: started.tools })
        } catch (error) {
          await closeScope(scope)
          throw error
        }
        const id = sessionOf(result)
        const previous = scopes.get(id)
        scopes.set(id, scope)
        if (previous !== undefined) await closeScope(previous)
        pending.set(
          id,
          started.failures.map((f): acp.SessionUpdate => ({
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: `${f.message}.\n\n` },
          })),
        )
        return result
      },
    }
  }

  return {
    start,
    /** What the user has not been told yet about the session's servers; told once. */
    notices: (sessionId: string): ReadonlyArray<acp.SessionUpdate> => {
      const updates = pending.get(sessionId) ?? []
      pending.delete(sessionId)
      return updates
    },
    /** Stops the session's servers (the session is closed). */
    close,
    /** Stops every session's servers (the connection ended). */
    closeAll: async () => {
      for (const id of [...scopes.keys()]) await close(id)
    },
  }
}

export type SessionMcp = ReturnType<typeof make>
