// The interactive session in process, for tests of what a person sees: the
// real view, session driver and permission questions over the agent loop
// with the scripted model and the memory store, drawn into a headless
// terminal whose screen is read back as text.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Fiber, Layer } from "effect"
import { afterEach } from "vitest"
import { AgentLoop, Builtins } from "@turnlog/agent"
import { Scripted } from "@turnlog/llm"
import type { SessionId, SessionLog, StreamChunk } from "@turnlog/protocol"
import { Memory, SessionStore } from "@turnlog/store"
import * as ChatPermissions from "../../src/chat/ChatPermissions.js"
import * as ChatSession from "../../src/chat/ChatSession.js"
import { ChatView, type ViewOptions } from "../../src/chat/ChatView.js"
import * as SlashCommands from "../../src/chat/SlashCommands.js"
import { HeadlessTerminal } from "./headless.js"

export const MODEL = "scripted/test-model"
export const ENTER = "\r"
export const CTRL_C = "\x03"

export const text = (...deltas: ReadonlyArray<string>): Array<StreamChunk> => [
  { type: "block-start", index: 0, blockType: "text" },
  ...deltas.map((t): StreamChunk => ({ type: "text-delta", index: 0, text: t })),
  { type: "block-end", index: 0, block: { type: "text", text: deltas.join("") } },
]
export const stop: StreamChunk = { type: "finish", reason: { kind: "stop" } }
export const toolCall = (id: string, name: string, args: string): Array<StreamChunk> => [
  { type: "block-start", index: 0, blockType: "tool-call" },
  { type: "tool-call-delta", index: 0, id, name, argumentsDelta: args },
  { type: "block-end", index: 0, block: { type: "tool-call", id, name, arguments: args } },
  { type: "finish", reason: { kind: "tool-calls" } },
]

const dirs: Array<string> = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

export interface OpenOptions extends Partial<ViewOptions> {
  /** Files to create in the session's directory first. */
  readonly files?: Record<string, string>
  /** Rows of the headless terminal (80 columns). */
  readonly rows?: number
  /** What `/model` offers (and completes). */
  readonly models?: ReadonlyArray<string>
  /** The loop's compaction setting. */
  readonly compaction?: AgentLoop.CompactionSetting
  /** `chat --mode`, `--reasoning`. */
  readonly mode?: SessionLog.Mode
  readonly reasoning?: SessionLog.ReasoningEffort
}

/** A session in a fresh directory, driven from a headless terminal until `/quit`. */
export const open = async (
  script: Scripted.Script,
  options: Scripted.Options & { readonly retryDelayMs?: number } = {},
  viewOptions: OpenOptions = {},
) => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-chat-")))
  dirs.push(cwd)
  for (const [name, content] of Object.entries(viewOptions.files ?? {})) writeFileSync(join(cwd, name), content)
  const terminal = new HeadlessTerminal(80, viewOptions.rows ?? 30)
  const view = new ChatView(terminal, {
    commands: viewOptions.models === undefined ? SlashCommands.COMMANDS : SlashCommands.commands(viewOptions.models),
    cwd,
    ...viewOptions,
  })
  const permissions = ChatPermissions.make(view)
  const layer = AgentLoop.layer({
    model: MODEL,
    ...(options.retryDelayMs === undefined ? {} : { retry: { baseDelayMs: options.retryDelayMs } }),
    ...(viewOptions.compaction === undefined ? {} : { compaction: viewOptions.compaction }),
  }).pipe(
    Layer.provideMerge(Layer.mergeAll(
      Scripted.layerScripted(script, options),
      Memory.layerMemory,
      Builtins.layer(),
      permissions.layer,
    )),
  )
  const runtime = await Effect.runPromise(Effect.scoped(Layer.toRuntime(layer)).pipe(Effect.map((r) => r)))
  const program = Effect.gen(function*() {
    const loop = yield* AgentLoop.AgentLoop
    const id = yield* loop.createSession({ cwd, model: MODEL })
    view.start()
    yield* ChatSession.run({
      view,
      permissions,
      session: id,
      model: MODEL,
      tools: [],
      cwd,
      store: "memory",
      ...(viewOptions.models === undefined ? {} : { models: viewOptions.models }),
      ...(viewOptions.mode === undefined ? {} : { mode: viewOptions.mode }),
      ...(viewOptions.reasoning === undefined ? {} : { reasoning: viewOptions.reasoning }),
    }).pipe(
      Effect.ensuring(Effect.sync(() => view.stop())),
    )
    return id
  })
  const fiber = Effect.runFork(Effect.provide(program, runtime))
  await terminal.until((t) => t.includes("/help for"), "the footer")
  const events = (id: SessionId) =>
    Effect.runPromise(Effect.provide(Effect.flatMap(SessionStore.SessionStore, (s) => s.read(id)), runtime)).then((l) => l.events)
  const done = () => Effect.runPromise(Fiber.join(fiber))
  const quit = async () => {
    terminal.type("/quit")
    terminal.type(ENTER)
    return done()
  }
  /** Types a line and Enter. */
  const send = (line: string) => {
    terminal.type(line)
    terminal.type(ENTER)
  }
  return { terminal, cwd, quit, done, events, send }
}
