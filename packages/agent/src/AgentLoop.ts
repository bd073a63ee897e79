/**
 * The agent loop as a service: sessions, turns and their updates. Composed from
 * `LlmAdapter`, `SessionStore`, `Tools` and `Permissions` layers; the ACP server
 * and the command line drive it.
 *
 * Sessions are held in memory over the store, one turn at a time per session,
 * each turn's updates streamed as they happen; the turn itself lives in
 * `internal/Turn.ts`. A turn runs in its own fiber and writes into an unbounded
 * queue, so a slow reader never holds up the log; a reader that goes away
 * cancels the turn the same way `cancel` does, and the turn still closes itself
 * in the log.
 */
import * as path from "node:path"
import { Context, Data, Deferred, Effect, Either, Exit, Fiber, HashMap, Layer, Option, Queue, Stream, SynchronizedRef, Take } from "effect"
import { LlmAdapter } from "@turnlog/llm"
import type { ContentBlock, Failure, SessionId, SessionLog, Usage } from "@turnlog/protocol"
import { SessionStore, type StoreError } from "@turnlog/store"
import * as Compact from "./internal/Compact.js"
import * as Journal from "./internal/Journal.js"
import * as Turn from "./internal/Turn.js"
import type { TurnConfig } from "./internal/TurnContext.js"
import { Permissions } from "./Permissions.js"
import { type Service as Registry, type Tool, Tools, extend } from "./Tools.js"

/** What a prompt streams, in order, as it happens. */
export type AgentUpdate =
  | { readonly type: "turn-start" }
  | { readonly type: "text-delta"; readonly text: string }
  | { readonly type: "reasoning-delta"; readonly text: string }
  /** A tool call the model finished and the log committed (never one cut off by max-tokens). */
  | {
    readonly type: "tool-call"
    readonly callId: string
    readonly name: string
    readonly arguments: string
  }
  | { readonly type: "tool-running"; readonly callId: string; readonly name: string }
  | {
    readonly type: "tool-result"
    readonly callId: string
    readonly name: string
    readonly content: string
    readonly isError: boolean
  }
  | { readonly type: "usage"; readonly usage: Usage }
  /**
   * A provider attempt failed transiently and will be retried after `delayMs`;
   * `attempt` is the number of the attempt about to run (2 for the first retry),
   * as its `request/start` will record it.
   */
  | { readonly type: "retry"; readonly attempt: number; readonly delayMs: number; readonly failure: Failure }
  | {
    readonly type: "turn-end"
    readonly reason: SessionLog.TurnEndReason
    readonly failure?: Failure
  }

export class AgentBusy extends Data.TaggedError("AgentBusy")<{ readonly sessionId: SessionId }> {
  override get message() {
    return `session ${this.sessionId} already has a turn in flight`
  }
}

export class InvalidModel extends Data.TaggedError("InvalidModel")<{ readonly model: string; readonly detail: string }> {
  override get message() {
    return `model "${this.model}": ${this.detail}`
  }
}

/** A compaction asked for that could not be made; `message` says why in one sentence. */
export class CompactionFailed extends Data.TaggedError("CompactionFailed")<{ readonly message: string }> {}

/** What an asked-for compaction did: the request estimates before and after, or nothing to summarise. */
export type Compacted = Compact.Compacted

export type AgentError = StoreError.StoreError | AgentBusy | InvalidModel

export interface Service {
  /**
   * A new session in `cwd`; `model` is `<provider>/<model>` (default: the loop's configured model);
   * `tools` join the registry's for this session only (an editor's MCP servers).
   */
  readonly createSession: (
    options: { readonly cwd: string; readonly model?: string; readonly tools?: ReadonlyArray<Tool> },
  ) => Effect.Effect<SessionId, AgentError>
  /**
   * Opens a stored session for writing (the store's recovery runs) and returns its log;
   * `tools`, when given, replace the session's own tools (as `createSession`'s).
   */
  readonly load: (
    id: SessionId,
    options?: { readonly model?: string; readonly tools?: ReadonlyArray<Tool> },
  ) => Effect.Effect<SessionStore.LoadedSession, AgentError>
  /** Runs one turn. The stream ends after its `turn-end` update. */
  readonly prompt: (id: SessionId, content: string | ReadonlyArray<ContentBlock>) => Stream.Stream<AgentUpdate, AgentError>
  /**
   * Compacts the session now, whatever its estimate (the command line's
   * `compact`, ACP's `/compact`): the summary request and `context/compaction`
   * are written between turns. Refused while a turn runs.
   */
  readonly compact: (id: SessionId) => Effect.Effect<Compacted, AgentError | CompactionFailed>
  /** Cancels the turn in flight, if any; the prompt's stream ends with `turn-end {cancelled}`. */
  readonly cancel: (id: SessionId) => Effect.Effect<void>
}

export class AgentLoop extends Context.Tag("@turnlog/agent/AgentLoop")<AgentLoop, Service>() {}

export interface Config {
  /** `<provider>/<model>`: the default for new and loaded sessions. */
  readonly model: string
  /** Provider requests per turn before it ends with `max-steps` (default 50). */
  readonly maxSteps?: number
  /** The output limit sent with each request (absent: the adapter decides). */
  readonly maxTokens?: number
  /** The system prompt sent with each request. */
  readonly system?: string
  /** Quiet time after which a provider stream is abandoned as a transient `TIMEOUT` (default 600000). */
  readonly streamIdleTimeoutMs?: number
  /**
   * `{ enabled, reserveTokens, keepRecentTokens, toolResultShare }`, each
   * optional (the defaults scale with the model's window); checked against the
   * model's window before each request, refused with a sentence naming the field.
   */
  readonly compaction?: CompactionSetting
  readonly retry?: {
    /** Retries of a transient failure that produced no content (default 3). */
    readonly maxRetries?: number
    /** Backoff before retry n is `baseDelayMs · 2^(n-1)` unless the provider said when (default 1000). */
    readonly baseDelayMs?: number
    /** Cap on the computed backoff; a provider's `retry-after` is honoured as given (default 30000). */
    readonly maxDelayMs?: number
  }
}

export interface CompactionSetting {
  readonly enabled?: boolean
  readonly reserveTokens?: number
  readonly keepRecentTokens?: number
  readonly toolResultShare?: number
}

/** `<provider>/<model>`, split at the first slash (model ids may contain more). */
export const parseModel = (model: string): Effect.Effect<Journal.Route, InvalidModel> => {
  const slash = model.indexOf("/")
  return slash > 0 && slash < model.length - 1
    ? Effect.succeed({ provider: model.slice(0, slash), model: model.slice(slash + 1) })
    : Effect.fail(new InvalidModel({ model, detail: `expected "<provider>/<model>"` }))
}

const turnConfig = (config: Config): TurnConfig => ({
  maxSteps: config.maxSteps ?? 50,
  // Ten minutes: longer than a slow model thinks before its first token, and
  // longer than the HTTP client's own five minutes without a byte; this
  // catches what that does not, a connection kept alive that never delivers.
  streamIdleTimeoutMs: config.streamIdleTimeoutMs ?? 600_000,
  retry: {
    maxRetries: config.retry?.maxRetries ?? 3,
    baseDelayMs: config.retry?.baseDelayMs ?? 1000,
    maxDelayMs: config.retry?.maxDelayMs ?? 30_000,
  },
  ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
  ...(config.system !== undefined ? { system: config.system } : {}),
  ...(config.compaction !== undefined ? { compaction: config.compaction } : {}),
})

/** The turn in flight: its cancel signal, and done once it closed itself. */
interface TurnHandle {
  readonly cancel: Deferred.Deferred<void>
  readonly done: Deferred.Deferred<void>
}

interface Session {
  readonly journal: Journal.Journal
  readonly turn: Option.Option<TurnHandle>
}

/** The sessions this process holds, and those it created that no turn has completed in yet. */
interface Table {
  readonly sessions: HashMap.HashMap<SessionId, Session>
  /**
   * If the store lets go of an unwritten session (its first write failed), its
   * id — which the client holds — is taken again for a new, empty session.
   */
  readonly unwritten: HashMap.HashMap<SessionId, { readonly cwd: string; readonly route: Journal.Route }>
  /** The registry of a session that has tools of its own; kept when the session is reopened. */
  readonly tools: HashMap.HashMap<SessionId, Registry>
}

const withSession = (table: Table, id: SessionId, session: Session): Table => ({
  ...table,
  sessions: HashMap.set(table.sessions, id, session),
})

export const make = (config: Config) =>
  Effect.gen(function*() {
    const adapter = yield* LlmAdapter.LlmAdapter
    const store = yield* SessionStore.SessionStore
    const tools = yield* Tools
    const permissions = yield* Permissions
    const defaultRoute = yield* parseModel(config.model)
    const settings = turnConfig(config)
    // Loading and starting a turn check and change the table across an await
    // (the store's open): `modifyEffect` runs them one at a time, so two
    // prompts cannot both begin.
    const table = yield* SynchronizedRef.make<Table>({
      sessions: HashMap.empty(),
      unwritten: HashMap.empty(),
      tools: HashMap.empty(),
    })

    const withTools = (t: Table, id: SessionId, own: ReadonlyArray<Tool> | undefined): Table =>
      own === undefined
        ? t
        : { ...t, tools: own.length === 0 ? HashMap.remove(t.tools, id) : HashMap.set(t.tools, id, extend(tools, own)) }

    const routeFor = (model: string | undefined) =>
      model === undefined ? Effect.succeed(defaultRoute) : parseModel(model)

    const createSession: Service["createSession"] = (options) =>
      Effect.gen(function*() {
        const route = yield* routeFor(options.model)
        const cwd = path.resolve(options.cwd)
        const id = yield* store.create({ cwd })
        const journal = yield* Journal.make(id, cwd, route, [])
        yield* SynchronizedRef.update(table, (t) =>
          withTools({
            ...t,
            sessions: HashMap.set(t.sessions, id, { journal, turn: Option.none() }),
            unwritten: HashMap.set(t.unwritten, id, { cwd, route }),
          }, id, options.tools))
        return id
      })

    /** Opens `id` for writing into the table; only inside the table's `modifyEffect`. */
    const loadInto = (t: Table, id: SessionId, model: string | undefined) =>
      Effect.gen(function*() {
        const route = yield* routeFor(model)
        const held = HashMap.get(t.sessions, id)
        if (Option.isSome(held) && Option.isSome(held.value.turn)) return yield* new AgentBusy({ sessionId: id })
        const created = HashMap.get(t.unwritten, id)
        const loaded = yield* store.open(id).pipe(
          Effect.catchTag("SessionNotFound", (notFound) =>
            Option.isNone(created)
              ? Effect.fail(notFound)
              : Effect.zipRight(store.create({ cwd: created.value.cwd, id }), store.open(id))),
        )
        const journalRoute = Option.isSome(created) && model === undefined ? created.value.route : route
        const session: Session = {
          journal: yield* Journal.make(id, loaded.header.cwd, journalRoute, loaded.events, loaded.header.version),
          turn: Option.none(),
        }
        return [loaded, withSession(t, id, session)] as const
      })

    const load: Service["load"] = (id, options) =>
      SynchronizedRef.modifyEffect(table, (t) =>
        Effect.map(loadInto(t, id, options?.model), ([loaded, next]) => [loaded, withTools(next, id, options?.tools)] as const))

    /** Marks the session busy, loading it first if this process does not hold it yet. */
    const begin = (id: SessionId) =>
      SynchronizedRef.modifyEffect(table, (t) =>
        Effect.gen(function*() {
          const loaded = HashMap.has(t.sessions, id) ? t : (yield* loadInto(t, id, undefined))[1]
          const session = HashMap.unsafeGet(loaded.sessions, id)
          if (Option.isSome(session.turn)) return yield* new AgentBusy({ sessionId: id })
          const turn: TurnHandle = { cancel: yield* Deferred.make<void>(), done: yield* Deferred.make<void>() }
          const registry = Option.getOrElse(HashMap.get(loaded.tools, id), () => tools)
          return [{ session, turn, registry }, withSession(loaded, id, { ...session, turn: Option.some(turn) })] as const
        }))

    /** The session is free again (if it still holds this turn), and whoever waits on the turn is told. */
    const finished = (id: SessionId, turn: TurnHandle) =>
      SynchronizedRef.update(table, (t) => {
        const session = HashMap.get(t.sessions, id)
        return Option.isSome(session) && Option.contains(session.value.turn, turn)
          ? withSession(t, id, { ...session.value, turn: Option.none() })
          : t
      }).pipe(Effect.zipRight(Deferred.succeed(turn.done, undefined)))

    const prompt: Service["prompt"] = (id, content) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const { registry, session, turn } = yield* begin(id)
        const queue = yield* Queue.unbounded<Take.Take<AgentUpdate, AgentError>>()
        const blocks: ReadonlyArray<ContentBlock> = typeof content === "string"
          ? [{ type: "text", text: content }]
          : content
        const writer = Journal.writer(store, session.journal)
        const fiber = yield* Turn.run({
          adapter,
          tools: registry,
          permissions,
          journal: session.journal,
          writer,
          config: settings,
          emit: (update) => Queue.offer(queue, Take.of(update)),
          cancel: turn.cancel,
        }, blocks).pipe(
          // A turn that failed or was stopped still hands its streamed chunks to the store.
          Effect.ensuring(Effect.ignore(writer.close)),
          Effect.exit,
          Effect.flatMap((exit) =>
            Exit.isSuccess(exit)
              ? SynchronizedRef.update(table, (t) => ({ ...t, unwritten: HashMap.remove(t.unwritten, id) })).pipe(
                Effect.zipRight(finished(id, turn)),
                Effect.zipRight(Queue.offer(queue, Take.end)),
              )
              // The log may now disagree with what this process holds: let go of the
              // session so the next use reopens it and the store's recovery closes the turn.
              : SynchronizedRef.update(table, (t) => ({ ...t, sessions: HashMap.remove(t.sessions, id) })).pipe(
                Effect.zipRight(Effect.ignore(store.release(id))),
                Effect.zipRight(finished(id, turn)),
                Effect.zipRight(Queue.offer(queue, Take.failCause(exit.cause))),
              )
          ),
          Effect.ensuring(finished(id, turn)),
          Effect.forkDaemon,
        )
        // A reader that stops early cancels the turn and waits for it to close the log.
        yield* Effect.addFinalizer(() =>
          Deferred.succeed(turn.cancel, undefined).pipe(Effect.zipRight(Fiber.await(fiber)))
        )
        return Stream.fromQueue(queue).pipe(Stream.flattenTake)
      }))

    const compact: Service["compact"] = (id) =>
      Effect.flatMap(begin(id), ({ session, turn }) => {
        const writer = Journal.writer(store, session.journal)
        return Effect.gen(function*() {
          const deps = {
            adapter,
            tools,
            permissions,
            journal: session.journal,
            writer,
            config: settings,
            emit: () => Effect.void,
            cancel: turn.cancel,
          }
          const { provider, model } = session.journal.route
          const budget = Compact.budget(deps)
          if (Either.isLeft(budget)) return yield* new CompactionFailed({ message: budget.left.message })
          if (budget.right === undefined) {
            return yield* new CompactionFailed({
              message: `${provider}/${model} declares no context window, so its sessions are not compacted`,
            })
          }
          const done = yield* Compact.run(deps, budget.right, 0)
          if (Either.isLeft(done)) return yield* new CompactionFailed({ message: done.left.message })
          return done.right
        }).pipe(
          Effect.ensuring(Effect.ignore(writer.close)),
          Effect.ensuring(finished(id, turn)),
        )
      })

    const cancel: Service["cancel"] = (id) =>
      Effect.flatMap(SynchronizedRef.get(table), (t) => {
        const turn = Option.flatMap(HashMap.get(t.sessions, id), (session) => session.turn)
        if (Option.isNone(turn)) return Effect.void
        return Deferred.succeed(turn.value.cancel, undefined).pipe(Effect.zipRight(Deferred.await(turn.value.done)))
      })

    return { createSession, load, prompt, compact, cancel } satisfies Service
  })

export const layer = (config: Config): Layer.Layer<
  AgentLoop,
  InvalidModel,
  LlmAdapter.LlmAdapter | SessionStore.SessionStore | Tools | Permissions
> => Layer.effect(AgentLoop, make(config))
