/**
 * How long this process holds a session a client has open. After it went
 * unused for a while (no request working on it) it is let go: the loop's
 * `release` (its lease, open files and what the loop held of it) and its MCP
 * servers. The client still has it open: the next request that needs it opens
 * it again from the store — with whatever another process appended meanwhile,
 * which the client is then sent — and starts its MCP servers again from what
 * the client gave.
 */
import type * as acp from "@agentclientprotocol/sdk"
import { Duration, Effect, Exit, Runtime, Scope } from "effect"
import type { AgentLoop } from "@turnlog/agent"
import { SessionId } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"
import * as Errors from "../Errors.js"
import type { SessionMcp } from "../SessionMcp.js"
import * as IdleRelease from "./IdleRelease.js"
import type { Run } from "./Runner.js"

export interface Deps {
  readonly loop: AgentLoop.Service
  readonly mcpServers: SessionMcp
  readonly run: Run
  readonly log: (line: string) => void
  /** Unused this long, a session is let go. */
  readonly after: Duration.Duration
  /** The session's model when it is not the default. */
  readonly modelOf: (id: string) => string | undefined
  /**
   * After a session was opened again: what the server keeps per session is
   * brought up to date with its log, and the client sent the events from
   * `shownUntil` on (what others appended while it was let go).
   */
  readonly reopened: (
    client: acp.AgentContext,
    id: string,
    loaded: SessionStore.LoadedSession,
    shownUntil: number,
  ) => Promise<void>
}

interface Given {
  readonly servers: ReadonlyArray<acp.McpServer>
  readonly cwd: string
}

export const make = (runtime: Runtime.Runtime<never>, deps: Deps) => {
  const runPromise = Runtime.runPromise(runtime)
  // Sessions let go while the client has them open, each with the seq its log had reached then.
  const released = new Map<string, number>()
  // The MCP servers each session was given, to start them again when it is opened again.
  const given = new Map<string, Given>()
  const reopening = new Map<string, Promise<void>>()
  const seconds = Duration.toSeconds(deps.after)

  const letGo = (id: string): Effect.Effect<void> =>
    deps.loop.release(SessionId.make(id)).pipe(
      Effect.map((stood) => ({ gone: true, nextSeq: stood?.nextSeq })),
      Effect.catchAll((error) =>
        Effect.sync(() => {
          deps.log(`session ${id}: letting it go after ${seconds} s unused: ${error.message}`)
          // Refused only while a turn runs; after any other failure the loop has let go all the same.
          return { gone: error._tag !== "AgentBusy", nextSeq: undefined }
        })
      ),
      Effect.flatMap(({ gone, nextSeq }) =>
        gone
          ? Effect.promise(() => deps.mcpServers.close(id)).pipe(
            Effect.zipRight(Effect.sync(() => {
              // Not known (the loop did not hold it): nothing is sent again, as before.
              released.set(id, nextSeq ?? Number.MAX_SAFE_INTEGER)
              deps.log(`session ${id}: unused for ${seconds} s, let go until its next prompt`)
            })),
          )
          : Effect.void
      ),
    )

  const scope = Runtime.runSync(runtime)(Scope.make())
  const timers = Runtime.runSync(runtime)(Scope.extend(IdleRelease.make(deps.after, letGo), scope))

  const reopen = async (client: acp.AgentContext, id: string) => {
    const { cwd, servers } = given.get(id) ?? { cwd: "/", servers: [] }
    const started = await deps.mcpServers.start(servers, cwd)
    const model = deps.modelOf(id)
    const loaded = await started.use(
      (tools) =>
        deps.run(
          deps.loop.load(SessionId.make(id), { ...tools, ...(model === undefined ? {} : { model }) }).pipe(
            Effect.mapError(Errors.fromAgentError),
          ),
        ),
      () => id,
    )
    const shownUntil = released.get(id) ?? Number.MAX_SAFE_INTEGER
    released.delete(id)
    await deps.reopened(client, id, loaded, shownUntil)
  }

  return {
    /** A session the client made or opened (again), with the MCP servers it gave; its timer starts once unused. */
    opened: (id: string, servers: ReadonlyArray<acp.McpServer>, cwd: string): void => {
      given.set(id, { servers, cwd })
      released.delete(id)
    },
    /** Runs `f` with the session in use: not let go meanwhile, and its timer started again after. */
    using: async <A>(id: string, f: () => Promise<A>): Promise<A> => {
      await runPromise(timers.busy(id))
      try {
        return await f()
      } finally {
        await runPromise(timers.idle(id))
      }
    },
    isReleased: (id: string): boolean => released.has(id),
    /** Opens the session again if it was let go (one opening at a time per session). */
    ensureOpen: (client: acp.AgentContext, id: string): Promise<void> => {
      if (!released.has(id)) return Promise.resolve()
      let pending = reopening.get(id)
      if (pending === undefined) {
        pending = reopen(client, id).finally(() => reopening.delete(id))
        reopening.set(id, pending)
      }
      return pending
    },
    /** The session is closed: no timer, nothing kept. */
    closed: async (id: string): Promise<void> => {
      await runPromise(timers.forget(id))
      released.delete(id)
      given.delete(id)
    },
    /** The connection ended: every timer stops. */
    shutdown: (): Promise<void> => runPromise(Scope.close(scope, Exit.void)),
  }
}

export type Lifetime = ReturnType<typeof make>
