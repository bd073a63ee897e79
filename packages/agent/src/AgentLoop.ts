/**
 * The agent loop as a service: sessions, turns and their updates. Composed from
 * `LlmAdapter`, `SessionStore`, `Tools` and `Permissions` layers; the ACP server
 * and the command line drive it.
 *
 * The system prompt of each request is built by the `SystemPrompt` service when
 * one is provided (optional: without it, the config's `system` is sent as is).
 *
 * Sessions are held in memory over the store, one turn at a time per session,
 * each turn's updates streamed as they happen; the turn itself lives in
 * `internal/Turn.ts`. A turn runs in its own fiber and writes into an unbounded
 * queue, so a slow reader never holds up the log; a reader that goes away
 * cancels the turn the same way `cancel` does, and the turn still closes itself
 * in the log.
 */
import * as path from "node:path"
import { Context, Deferred, Effect, Either, Exit, Fiber, HashMap, Layer, Option, Queue, Ref, Stream, SynchronizedRef, Take } from "effect"
import { LlmAdapter } from "@turnlog/llm"
import { type ContentBlock, type Route, type SessionId, SessionLog } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store"
import type { AgentUpdate } from "./internal/AgentUpdate.js"
import * as Compact from "./internal/Compact.js"
import * as ContextUsage from "./internal/ContextUsage.js"
import * as Journal from "./internal/Journal.js"
import { type Config, parseModel, turnConfig } from "./internal/LoopConfig.js"
import {
  type AgentError,
  AgentBusy,
  type Compacted,
  CompactionFailed,
  type InvalidModel,
  ModelUnavailable,
  oneSentence,
} from "./internal/LoopErrors.js"
import * as Table from "./internal/SessionTable.js"
import * as Turn from "./internal/Turn.js"
import { Permissions } from "./Permissions.js"
import * as SystemPrompt from "./SystemPrompt.js"
import { ToolHosts } from "./ToolHost.js"
import { type Tool, Tools } from "./Tools.js"

export type { AgentUpdate } from "./internal/AgentUpdate.js"
export type { ContextUsage } from "./internal/ContextUsage.js"
export { type CompactionSetting, type Config, parseModel } from "./internal/LoopConfig.js"
export {
  type AgentError,
  AgentBusy,
  type Compacted,
  CompactionFailed,
  InvalidModel,
  ModelUnavailable,
} from "./internal/LoopErrors.js"

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
   * The session talks to `model`; without it, to the loop's default model, or —
   * with `keepModel` — to the route its last request used (`lastRoute`), the
   * default only when it has made none.
   */
  readonly load: (
    id: SessionId,
    options?: { readonly model?: string; readonly keepModel?: boolean; readonly tools?: ReadonlyArray<Tool> },
  ) => Effect.Effect<SessionStore.LoadedSession, AgentError>
  /** Runs one turn. The stream ends after its `turn-end` update. */
  readonly prompt: (id: SessionId, content: string | ReadonlyArray<ContentBlock>) => Stream.Stream<AgentUpdate, AgentError>
  /**
   * Compacts the session now, whatever its estimate (the command line's
   * `compact`, ACP's `/compact`): the summary request and `context/compaction`
   * are written between turns. Refused while a turn runs.
   */
  readonly compact: (
    id: SessionId,
    /** `focus`: what the summary is asked to keep in view. */
    options?: { readonly focus?: string },
  ) => Effect.Effect<Compacted, AgentError | CompactionFailed>
  /**
   * Sets the session's mode (how much its tools may do without asking): a
   * `session/mode` event, flushed, read by the next tool call and request.
   * Written between turns: refused while a turn runs. Setting the mode it
   * already has writes nothing.
   */
  readonly setMode: (id: SessionId, mode: SessionLog.Mode) => Effect.Effect<void, AgentError>
  /** Logs the session's reasoning effort (`session/reasoning`) between turns, when it changes. */
  readonly setReasoning: (id: SessionId, effort: SessionLog.ReasoningEffort) => Effect.Effect<void, AgentError>
  /** Whether the model of a route (`<provider>/<model>`) reasons (takes a reasoning effort). */
  readonly reasons: (route: string) => boolean
  /**
   * How full the session's context is after its latest answer, against the
   * window of the model it talks to, and what its answers cost where their
   * models have prices. Undefined when the session is not held or the adapter
   * knows no window for its model.
   */
  readonly contextUsage: (id: SessionId) => Effect.Effect<ContextUsage.ContextUsage | undefined>
  /** Cancels the turn in flight, if any; the prompt's stream ends with `turn-end {cancelled}`. */
  readonly cancel: (id: SessionId) => Effect.Effect<void>
  /**
   * Lets go of a session between turns: its lease and open files (the store's
   * `release`) and what the loop holds of it, its own tools included. The next
   * `load` or `prompt` opens it again from the store, with whatever another
   * process appended meanwhile. Refused (`AgentBusy`) while a turn or a
   * compaction runs; a session not held is left as it is. Returns where its
   * log stood when it was let go (none when it was not held): what a client
   * was shown, so that what others append meanwhile can be told apart.
   */
  readonly release: (id: SessionId) => Effect.Effect<Released | undefined, AgentError>
}

/** Where a session's log stood when the loop let it go. */
export interface Released {
  /** The seq the session's next event would have had (1: none written). */
  readonly nextSeq: number
}

export class AgentLoop extends Context.Tag("@turnlog/agent/AgentLoop")<AgentLoop, Service>() {}

export const make = (config: Config) =>
  Effect.gen(function*() {
    const adapter = yield* LlmAdapter.LlmAdapter
    const store = yield* SessionStore.SessionStore
    const tools = yield* Tools
    const permissions = yield* Permissions
    // The provided prompt builder, else the config's fixed prompt, else none.
    const provided = yield* Effect.serviceOption(SystemPrompt.SystemPrompt)
    const systemPrompt = Option.getOrElse(
      provided,
      () => (config.system === undefined ? undefined : SystemPrompt.fixed(config.system)),
    )
    const hosts = Option.getOrUndefined(yield* Effect.serviceOption(ToolHosts))
    const defaultRoute = yield* parseModel(config.model)
    const settings = turnConfig(config)
    // Loading and starting a turn check and change the table across an await
    // (the store's open): `modifyEffect` runs them one at a time, so two
    // prompts cannot both begin.
    const table = yield* SynchronizedRef.make<Table.Table>(Table.empty)

    const withTools = (t: Table.Table, id: SessionId, own: ReadonlyArray<Tool> | undefined): Table.Table => Table.withTools(t, tools, id, own)

    const routeFor = (model: string | undefined) => model === undefined ? Effect.succeed(defaultRoute) : parseModel(model)

    /** Why no request on `route` could be sent (a key not set, a route no provider serves), known before any. */
    const unavailableOn = (route: { readonly provider: string; readonly model: string }) =>
      adapter.unavailable === undefined ? Effect.succeed(undefined) : adapter.unavailable(route.provider, route.model)

    const createSession: Service["createSession"] = (options) =>
      Effect.gen(function*() {
        const route = yield* routeFor(options.model)
        // Before the store makes it: a session whose every turn would fail for a
        // missing key (or an unknown route) is refused, not left behind empty.
        const unavailable = yield* unavailableOn(route)
        if (unavailable !== undefined) return yield* new ModelUnavailable({ ...route, failure: unavailable })
        const cwd = path.resolve(options.cwd)
        const id = yield* store.create({ cwd })
        const journal = yield* Journal.make(id, cwd, route, [])
        yield* SynchronizedRef.update(table, (t) =>
          withTools(
            {
              ...t,
              sessions: HashMap.set(t.sessions, id, { journal, turn: Option.none() }),
              unwritten: HashMap.set(t.unwritten, id, { cwd, route }),
            },
            id,
            options.tools,
          ))
        return id
      })

    /** Opens `id` for writing into the table; only inside the table's `modifyEffect`. */
    const loadInto = (t: Table.Table, id: SessionId, model: string | undefined, keepModel = false) =>
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
        const kept = keepModel && model === undefined ? lastRoute(loaded.events) : undefined
        const journalRoute = Option.isSome(created) && model === undefined ? created.value.route : kept ?? route
        const session: Table.Session = {
          journal: yield* Journal.make(id, loaded.header.cwd, journalRoute, loaded.events, loaded.header.version),
          turn: Option.none(),
        }
        return [loaded, Table.withSession(t, id, session)] as const
      })

    const load: Service["load"] = (id, options) =>
      SynchronizedRef.modifyEffect(table, (t) =>
        Effect.map(loadInto(t, id, options?.model, options?.keepModel), ([loaded, next]) => [loaded, withTools(next, id, options?.tools)] as const))

    /** Marks the session busy, loading it first if this process does not hold it yet. */
    const begin = (id: SessionId) =>
      SynchronizedRef.modifyEffect(table, (t) =>
        Effect.gen(function*() {
          const loaded = HashMap.has(t.sessions, id) ? t : (yield* loadInto(t, id, undefined))[1]
          const session = HashMap.unsafeGet(loaded.sessions, id)
          if (Option.isSome(session.turn))
            return yield* new AgentBusy({ sessionId: id })
          const turn: Table.TurnHandle = { cancel: yield* Deferred.make<void>(), done: yield* Deferred.make<void>() }
          const registry = Option.getOrElse(HashMap.get(loaded.tools, id), () =>
            tools)
          return [{ session, turn, registry }, Table.withSession(loaded, id, { ...session, turn: Option.some(turn) })] as const
        }))

    /** The session is free again (if it still holds this turn), and whoever waits on the turn is told. */
    const finished = (id: SessionId, turn: Table.TurnHandle) =>
      SynchronizedRef.update(table, (t) => Table.free(t, id, turn)).pipe(Effect.zipRight(Deferred.succeed(turn.done, undefined)))

    const prompt: Service["prompt"] = (id, content) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const { registry, session, turn } = yield* begin(id)
        // Before turn/start is written: a turn every request of which would fail
        // for a missing key leaves nothing in the log.
        const route = session.journal.route
        const unavailable = yield* unavailableOn(route)
        if (unavailable !== undefined) {
          yield* finished(id, turn)
          return yield* new ModelUnavailable({ provider: route.provider, model: route.model, failure: unavailable, sessionId: id })
        }
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
          ...(systemPrompt === undefined ? {} : { systemPrompt }),
          ...(hosts === undefined ? {} : { hosts }),
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
        yield* Effect.addFinalizer(() => Deferred.succeed(turn.cancel, undefined).pipe(Effect.zipRight(Fiber.await(fiber))))
        return Stream.fromQueue(queue).pipe(Stream.flattenTake)
      }))

    const compact: Service["compact"] = (id, options) =>
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
          const done = yield* Compact.run(deps, budget.right, 0, options?.focus)
          if (Either.isLeft(done)) return yield* new CompactionFailed({ message: done.left.message })
          return done.right
        }).pipe(
          Effect.ensuring(Effect.ignore(writer.close)),
          Effect.ensuring(finished(id, turn)),
        )
      })

    const setMode: Service["setMode"] = (id, mode) =>
      Effect.flatMap(begin(id), ({ session, turn }) => {
        const writer = Journal.writer(store, session.journal)
        return Journal.history(session.journal).pipe(
          Effect.flatMap((events) =>
            SessionLog.modeOf(events) === mode
              ? Effect.void
              : Effect.zipRight(writer.log([{ type: "session/mode", data: { mode } }]), writer.flush)
          ),
          Effect.ensuring(finished(id, turn)),
        )
      })

    const setReasoning: Service["setReasoning"] = (id, effort) =>
      Effect.flatMap(begin(id), ({ session, turn }) => {
        const writer = Journal.writer(store, session.journal)
        return Journal.history(session.journal).pipe(
          Effect.flatMap((events) =>
            SessionLog.reasoningOf(events) === effort
              ? Effect.void
              : Effect.zipRight(writer.log([{ type: "session/reasoning", data: { effort } }]), writer.flush)
          ),
          Effect.ensuring(finished(id, turn)),
        )
      })

    const reasons: Service["reasons"] = (route) => {
      const slash = route.indexOf("/")
      return slash > 0 && adapter.modelInfo?.(route.slice(0, slash), route.slice(slash + 1))?.reasoning === true
    }

    const contextUsage: Service["contextUsage"] = (id) =>
      Effect.flatMap(SynchronizedRef.get(table), (t) => {
        const held = HashMap.get(t.sessions, id)
        if (Option.isNone(held) || adapter.modelInfo === undefined) return Effect.succeed(undefined)
        const infoOf = adapter.modelInfo
        const { provider, model } = held.value.journal.route
        const info = infoOf(provider, model)
        if (info === undefined) return Effect.succeed(undefined)
        return Effect.map(Journal.history(held.value.journal), (events) => ContextUsage.of(events, info, infoOf))
      })

    const cancel: Service["cancel"] = (id) =>
      Effect.flatMap(SynchronizedRef.get(table), (t) => {
        const turn = Option.flatMap(HashMap.get(t.sessions, id), (session) => session.turn)
        if (Option.isNone(turn)) return Effect.void
        return Deferred.succeed(turn.value.cancel, undefined).pipe(Effect.zipRight(Deferred.await(turn.value.done)))
      })

    const release: Service["release"] = (id) =>
      SynchronizedRef.modifyEffect(table, (t) => {
        const held = HashMap.get(t.sessions, id)
        if (Option.isSome(held) && Option.isSome(held.value.turn)) return Effect.fail(new AgentBusy({ sessionId: id }))
        const stood: Effect.Effect<Released | undefined> = Option.isNone(held)
          ? Effect.succeed(undefined)
          : Effect.map(Ref.get(held.value.journal.written), ({ nextSeq }) => ({ nextSeq }))
        // Let go of in the table whatever the store says: its lease is given up even when the last flush fails.
        return Effect.flatMap(
          stood,
          (released) => Effect.map(Effect.exit(store.release(id)), (exit) => [Exit.as(exit, released), Table.without(t, id)] as const),
        )
      }).pipe(Effect.flatten)

    return {
      createSession: (options) => Effect.mapError(createSession(options), oneSentence),
      load: (id, options) => Effect.mapError(load(id, options), oneSentence),
      prompt: (id, content) => Stream.mapError(prompt(id, content), oneSentence),
      compact: (id, options) => Effect.mapError(compact(id, options), oneSentence),
      setMode: (id, mode) => Effect.mapError(setMode(id, mode), oneSentence),
      setReasoning: (id, effort) => Effect.mapError(setReasoning(id, effort), oneSentence),
      reasons,
      contextUsage,
      cancel,
      release: (id) => Effect.mapError(release(id), oneSentence),
    } satisfies Service
  })

/** The route of a session's last request (`request/start`), if it made any. */
export const lastRoute = (events: ReadonlyArray<SessionLog.SessionEvent>): Route | undefined => {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === "request/start") return { provider: event.data.provider, model: event.data.model }
  }
  return undefined
}

export const layer = (config: Config): Layer.Layer<
  AgentLoop,
  InvalidModel,
  LlmAdapter.LlmAdapter | SessionStore.SessionStore | Tools | Permissions
> => Layer.effect(AgentLoop, make(config))
