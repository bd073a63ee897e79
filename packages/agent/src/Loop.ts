/**
 * The `AgentLoop` service (contract in `AgentLoop.ts`): sessions held in
 * memory over the store, one turn at a time per session, each turn's updates
 * streamed as they happen. The turn itself lives in `internal/Turn.ts`.
 *
 * A turn runs in its own fiber and writes into an unbounded queue, so a slow
 * reader never holds up the log; a reader that goes away cancels the turn the
 * same way `cancel` does, and the turn still closes itself in the log.
 */
import * as path from "node:path"
import { Deferred, Effect, Exit, Fiber, Layer, Queue, Stream, Take } from "effect"
import { LlmAdapter } from "@turnlog/llm"
import type { ContentBlock, SessionId } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store/SessionStore"
import { AgentBusy, AgentLoop, type AgentError, type AgentUpdate, InvalidModel, type Service } from "./AgentLoop.js"
import * as Journal from "./internal/Journal.js"
import * as Turn from "./internal/Turn.js"
import { Permissions } from "./Permissions.js"
import { Tools } from "./Tools.js"

export interface Config {
  /** `<provider>/<model>`: the default for new and loaded sessions. */
  readonly model: string
  /** Provider requests per turn before it ends with `max-steps` (default 50). */
  readonly maxSteps?: number
  readonly maxTokens?: number
  readonly system?: string
  /**
   * How long a provider stream may send no chunk before the attempt is
   * abandoned as a transient `TIMEOUT` failure (default 600000: ten minutes,
   * longer than a slow model thinks before its first token, and longer than
   * the HTTP client's own five minutes without a byte — this catches what that
   * does not: a connection kept alive that never delivers).
   */
  readonly streamIdleTimeoutMs?: number
  readonly retry?: {
    /** Retries of a transient failure that produced no content (default 3). */
    readonly maxRetries?: number
    /** Backoff before retry n is `baseDelayMs · 2^(n-1)` unless the provider said when (default 1000). */
    readonly baseDelayMs?: number
    /** Cap on the computed backoff; a provider's `retry-after` is honoured as given (default 30000). */
    readonly maxDelayMs?: number
  }
}

/** `<provider>/<model>`, split at the first slash (model ids may contain more). */
export const parseModel = (model: string): Effect.Effect<Journal.Route, InvalidModel> => {
  const slash = model.indexOf("/")
  return slash > 0 && slash < model.length - 1
    ? Effect.succeed({ provider: model.slice(0, slash), model: model.slice(slash + 1) })
    : Effect.fail(new InvalidModel({ model, detail: `expected "<provider>/<model>"` }))
}

interface Session {
  readonly journal: Journal.Journal
  turn?: {
    readonly cancel: Deferred.Deferred<void>
    readonly done: Deferred.Deferred<void>
  }
}

export const make = (config: Config) =>
  Effect.gen(function*() {
    const adapter = yield* LlmAdapter.LlmAdapter
    const store = yield* SessionStore
    const tools = yield* Tools
    const permissions = yield* Permissions
    const defaultRoute = yield* parseModel(config.model)
    const turnConfig: Turn.TurnConfig = {
      maxSteps: config.maxSteps ?? 50,
      streamIdleTimeoutMs: config.streamIdleTimeoutMs ?? 600_000,
      retry: {
        maxRetries: config.retry?.maxRetries ?? 3,
        baseDelayMs: config.retry?.baseDelayMs ?? 1000,
        maxDelayMs: config.retry?.maxDelayMs ?? 30_000,
      },
      ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
      ...(config.system !== undefined ? { system: config.system } : {}),
    }
    const sessions = new Map<SessionId, Session>()
    // Sessions created here that no turn has completed in yet: if the store
    // lets go of one before it was ever written (its first write failed), its
    // id — which the client holds — is taken again for a new, empty session.
    const unwritten = new Map<SessionId, { readonly cwd: string; readonly route: Journal.Route }>()

    const routeFor = (model: string | undefined) =>
      model === undefined ? Effect.succeed(defaultRoute) : parseModel(model)

    const createSession: Service["createSession"] = (options) =>
      Effect.gen(function*() {
        const route = yield* routeFor(options.model)
        const cwd = path.resolve(options.cwd)
        const id = yield* store.create({ cwd })
        sessions.set(id, { journal: Journal.make(id, cwd, route, []) })
        unwritten.set(id, { cwd, route })
        return id
      })

    // Loading and starting a turn check and change the session table across an
    // await (the store's open): one at a time, so two prompts cannot both begin.
    const lock = yield* Effect.makeSemaphore(1)

    const loadUnlocked = (id: SessionId, model: string | undefined) =>
      Effect.gen(function*() {
        const route = yield* routeFor(model)
        if (sessions.get(id)?.turn !== undefined) return yield* new AgentBusy({ sessionId: id })
        const created = unwritten.get(id)
        const loaded = yield* store.open(id).pipe(
          Effect.catchTag("SessionNotFound", (notFound) =>
            created === undefined
              ? Effect.fail(notFound)
              : Effect.zipRight(store.create({ cwd: created.cwd, id }), store.open(id))),
        )
        const journalRoute = created !== undefined && model === undefined ? created.route : route
        sessions.set(id, { journal: Journal.make(id, loaded.header.cwd, journalRoute, loaded.events) })
        return loaded
      })

    const load: Service["load"] = (id, options) => lock.withPermits(1)(loadUnlocked(id, options?.model))

    /** Marks the session busy, loading it first if this process does not hold it yet. */
    const begin = (id: SessionId) =>
      lock.withPermits(1)(Effect.gen(function*() {
        if (!sessions.has(id)) yield* loadUnlocked(id, undefined)
        const session = sessions.get(id)!
        if (session.turn !== undefined) return yield* new AgentBusy({ sessionId: id })
        const turn = { cancel: yield* Deferred.make<void>(), done: yield* Deferred.make<void>() }
        session.turn = turn
        return { session, turn }
      }))

    const prompt: Service["prompt"] = (id, content) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const { session, turn } = yield* begin(id)
        const queue = yield* Queue.unbounded<Take.Take<AgentUpdate, AgentError>>()
        const blocks: ReadonlyArray<ContentBlock> = typeof content === "string"
          ? [{ type: "text", text: content }]
          : content
        const finished = Effect.suspend(() => {
          if (session.turn === turn) delete session.turn
          return Deferred.succeed(turn.done, undefined)
        })
        const fiber = yield* Turn.run({
          adapter,
          tools,
          permissions,
          journal: session.journal,
          writer: Journal.writer(store, session.journal),
          config: turnConfig,
          emit: (update) => Queue.offer(queue, Take.of(update)),
          cancel: turn.cancel,
        }, blocks).pipe(
          Effect.exit,
          Effect.flatMap((exit) =>
            Exit.isSuccess(exit)
              ? Effect.sync(() => unwritten.delete(id)).pipe(
                Effect.zipRight(finished),
                Effect.zipRight(Queue.offer(queue, Take.end)),
              )
              // The log may now disagree with what this process holds: let go of the
              // session so the next use reopens it and the store's recovery closes the turn.
              : Effect.sync(() => sessions.delete(id)).pipe(
                Effect.zipRight(Effect.ignore(store.release(id))),
                Effect.zipRight(finished),
                Effect.zipRight(Queue.offer(queue, Take.failCause(exit.cause))),
              )
          ),
          Effect.ensuring(finished),
          Effect.forkDaemon,
        )
        // A reader that stops early cancels the turn and waits for it to close the log.
        yield* Effect.addFinalizer(() =>
          Deferred.succeed(turn.cancel, undefined).pipe(Effect.zipRight(Fiber.await(fiber)))
        )
        return Stream.fromQueue(queue).pipe(Stream.flattenTake)
      }))

    const cancel: Service["cancel"] = (id) =>
      Effect.suspend(() => {
        const turn = sessions.get(id)?.turn
        if (turn === undefined) return Effect.void
        return Deferred.succeed(turn.cancel, undefined).pipe(Effect.zipRight(Deferred.await(turn.done)))
      })

    return { createSession, load, prompt, cancel } satisfies Service
  })

export const layer = (config: Config) => Layer.effect(AgentLoop, make(config))
