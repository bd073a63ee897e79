// The loop composed from real layers over a temp directory, plus what a test
// needs to look inside: the requests the model saw, the log, the order of
// store operations against permission questions and tool runs.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect } from "@effect/vitest"
import { Chunk, Context, Effect, Fiber, Layer, Option, Stream, TestClock } from "effect"
import { LlmAdapter, Scripted } from "@turnlog/llm"
import { type SessionId, SessionLog, type StreamChunk } from "@turnlog/protocol"
import { Jsonl, Memory, SessionStore, StoreError } from "@turnlog/store"
import * as AgentLoop from "../../src/AgentLoop.js"
import * as Builtins from "../../src/Builtins.js"
import * as Permissions from "../../src/Permissions.js"
import * as Tools from "../../src/Tools.js"

/** A fresh directory (symlinks resolved), removed when the scope closes. */
export const tempDir = (prefix = "turnlog-agent-") =>
  Effect.acquireRelease(
    Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })),
  )

/** The order of what happened, to pin "durable before it runs". */
export type Op = string

/** The real store service, with each append and flush noted in `ops`, and appends `failing` refuses. */
const recording = (
  store: SessionStore.Service,
  ops: Array<Op>,
  failing: (events: ReadonlyArray<SessionLog.SessionEvent>) => boolean,
  openDelayMs: number,
): SessionStore.Service => ({
  ...store,
  open: (id) => Effect.zipRight(Effect.sleep(openDelayMs), store.open(id)),
  append: (id, events) =>
    failing(events)
      ? Effect.fail(new StoreError.StoreIOError({ path: "(test)", operation: "append", cause: new Error("disk full") }))
      : Effect.tap(store.append(id, events), () => {
        ops.push(`append ${events.map((e) => e.type).join(",")}`)
      }),
  flush: (id) => Effect.tap(store.flush(id), () => ops.push("flush")),
})

export interface Options {
  /** How permissions are decided; every question is noted in `ops` and `questions`. */
  readonly permissions?: (request: Permissions.Request) => Effect.Effect<Permissions.Decision>
  readonly builtins?: Builtins.Options
  readonly extraTools?: ReadonlyArray<Tools.Tool>
  readonly config?: Partial<AgentLoop.Config>
  /** The LLM layer; the scripted adapter over `script` by default. */
  readonly llm?: Layer.Layer<LlmAdapter.LlmAdapter, unknown>
  /** Appends the store refuses (a full disk) while this returns true. */
  readonly failAppend?: (events: ReadonlyArray<SessionLog.SessionEvent>) => boolean
  /** A pause before each `open`, so that two callers can be inside it at once. */
  readonly openDelayMs?: number
  /** The store layer; the memory store by default (see `disk`). */
  readonly store?: Layer.Layer<SessionStore.SessionStore, unknown>
  /** The JSONL store in a fresh temp home (`home`), as a real run writes it, for a test about the disk. */
  readonly disk?: boolean
}

export const DEFAULT_MODEL = "scripted/test-model"

/** A scripted call; a `stall` one plays its chunks and then never ends: a stream still in flight. */
export type Step = Scripted.ScriptStep

export const setup = (script: ReadonlyArray<Step>, options: Options = {}) =>
  Effect.gen(function*() {
    const cwd = yield* tempDir()
    const ops: Array<Op> = []
    const questions: Array<Permissions.Request> = []
    const scripted = yield* Scripted.make(script)
    const decide = options.permissions ?? (() => Effect.succeed("allow" as const))
    const home = yield* tempDir("turnlog-home-")
    const storeLayer = options.store ?? (options.disk === true ? Jsonl.layerJsonl({ home }) : Memory.layerMemoryWith(Memory.makeStorage()))
    const recordedStore = Layer.effect(
      SessionStore.SessionStore,
      Effect.map(SessionStore.SessionStore, (store) => recording(store, ops, options.failAppend ?? (() => false), options.openDelayMs ?? 0)),
    ).pipe(Layer.provide(storeLayer))
    const deps = Layer.mergeAll(
      options.llm ?? Layer.succeed(LlmAdapter.LlmAdapter, scripted.adapter),
      recordedStore,
      Tools.layer([...Builtins.tools(options.builtins), ...(options.extraTools ?? [])]),
      Permissions.layerAsk((request) =>
        Effect.suspend(() => {
          questions.push(request)
          ops.push(`ask ${request.title}`)
          return decide(request)
        })
      ),
    )
    const context = yield* Layer.build(
      AgentLoop.layer({ model: DEFAULT_MODEL, retry: { baseDelayMs: 1 }, ...options.config }).pipe(
        Layer.provideMerge(deps),
      ),
    )
    const loop = Context.get(context, AgentLoop.AgentLoop)
    const store = Context.get(context, SessionStore.SessionStore)
    const id = yield* loop.createSession({ cwd })
    const prompt = (content: string, sessionId: SessionId = id) => Effect.map(Stream.runCollect(loop.prompt(sessionId, content)), Chunk.toReadonlyArray)
    const events = (sessionId: SessionId = id) => Effect.map(store.read(sessionId), (loaded) => loaded.events)
    return { cwd, home, ops, questions, loop, store, id, prompt, events, requests: scripted.requests }
  })

type Harness = Effect.Effect.Success<ReturnType<typeof setup>>

/** Runs a prompt, cancelling the turn when `when` first holds for an update; every update the turn sent. */
export const promptCancelling = (
  h: Pick<Harness, "loop" | "id">,
  content: string,
  when: (update: AgentLoop.AgentUpdate) => boolean,
) =>
  Effect.gen(function*() {
    const updates: Array<AgentLoop.AgentUpdate> = []
    yield* h.loop.prompt(h.id, content).pipe(
      Stream.runForEach((update) => {
        updates.push(update)
        return when(update) ? h.loop.cancel(h.id) : Effect.void
      }),
    )
    return updates
  })

/**
 * Runs `effect` on the TestClock, moving time on by `stepMs` until it is done:
 * the turn's waits (backoff, an idle stream) pass without the test waiting on
 * the real clock. Each step first lets every fiber run until it waits.
 */
export const onTestClock = (stepMs: number) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    while (Option.isNone(yield* Fiber.poll(fiber))) yield* TestClock.adjust(stepMs)
    return yield* Fiber.join(fiber)
  })

/**
 * Moves the TestClock to `instant` once something waits until then: fails,
 * naming the wake-ups there are, if nothing comes to wait for that instant.
 */
export const wakeAt = (instant: number) =>
  Effect.gen(function*() {
    for (let tries = 0; tries < 50; tries++) {
      if (Chunk.some(yield* TestClock.sleeps(), (t) => t === instant)) return yield* TestClock.setTime(instant)
      yield* TestClock.adjust(0)
    }
    expect(Chunk.toReadonlyArray(yield* TestClock.sleeps())).toContain(instant)
  })

/** Events without their seq and time, the way a test states them. */
export const shapes = (events: ReadonlyArray<SessionLog.SessionEvent>) => events.map((e) => ({ type: e.type, data: e.data }))

export const types = (events: ReadonlyArray<SessionLog.SessionEvent>) => events.map((e) => e.type)

/** The `outline` of a turn of one request answered without a tool call. */
export const ONE_STEP_TURN = [
  "turn/start",
  "user/message",
  "request/start",
  "assistant/chunk*",
  "assistant/message",
  "turn/end",
] as const

/** Consecutive raw chunk events (one chunk or a batch each) folded into one entry, to read the shape of a log. */
export const outline = (events: ReadonlyArray<SessionLog.SessionEvent>): Array<string> => {
  const out: Array<string> = []
  for (const e of events) {
    const label = SessionLog.isRawChunk(e.type) ? "assistant/chunk*" : e.type
    if (label === "assistant/chunk*" && out[out.length - 1] === label) continue
    out.push(label)
  }
  return out
}

export const chunksOf = (events: ReadonlyArray<SessionLog.SessionEvent>): Array<StreamChunk> => SessionLog.chunksIn(events)

export const updateTypes = (updates: ReadonlyArray<AgentLoop.AgentUpdate>) => updates.map((u) => u.type)
