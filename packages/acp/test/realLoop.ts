/**
 * The server over the real agent loop (real store, tools, permissions and
 * assembler; the model scripted), for tests that drive it with the SDK's
 * client over a pair of in-memory streams. Call `cleanup` after each test.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer, ManagedRuntime } from "effect"
import { AgentLoop, Builtins } from "@turnlog/agent"
import { type LlmAdapter, Scripted } from "@turnlog/llm"
import { SessionId, type StreamChunk } from "@turnlog/protocol"
import { Memory, SessionStore } from "@turnlog/store"
import { McpServers } from "@turnlog/mcp"
import { AcpServer, CallIds, EditorHost, PermissionBridge } from "@turnlog/acp"
import { makeWire } from "./wire.js"

/** Each call plays its chunks; `stall` ones then stay open until the turn is cancelled. */
export type Call = Scripted.ScriptedCall

export const scripted = (calls: ReadonlyArray<Call>, modelInfo?: LlmAdapter.ModelInfo) =>
  Scripted.layerScripted(calls, modelInfo === undefined ? {} : { modelInfo })

export const text = (index: number, value: string): Array<StreamChunk> => [
  { type: "block-start", index, blockType: "text" },
  { type: "text-delta", index, text: value },
  { type: "block-end", index, block: { type: "text", text: value } },
]
export const toolCall = (index: number, id: string, name: string, args: string): Array<StreamChunk> => [
  { type: "block-start", index, blockType: "tool-call" },
  { type: "tool-call-delta", index, id, name, argumentsDelta: args },
  { type: "block-end", index, block: { type: "tool-call", id, name, arguments: args } },
]
export const finish = (kind: "stop" | "tool-calls" | "max-tokens"): StreamChunk => ({ type: "finish", reason: { kind } })

const dirs: Array<string> = []
const runtimes: Array<{ dispose: () => Promise<void> }> = []

/** Disposes every runtime `start` made and removes its directories. */
export const cleanup = async (): Promise<void> => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()))
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
}

export interface StartOptions {
  /** The model's facts (absent: none, so nothing is compacted). */
  readonly modelInfo?: LlmAdapter.ModelInfo
  /** Offers the slash commands, with this as `/doctor`'s report. */
  readonly doctor?: (session: SessionStore.LoadedSession) => string
  /** The server starts the MCP servers sessions name (without it they are only noted). */
  readonly mcp?: boolean
}

export const start = (calls: ReadonlyArray<Call>, options: StartOptions = {}) => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-acp-")))
  dirs.push(cwd)
  const layer = AgentLoop.layer({ model: "scripted/test" }).pipe(
    Layer.provide(Layer.mergeAll(scripted(calls, options.modelInfo), PermissionBridge.layerPermissions)),
    Layer.provideMerge(CallIds.layerTools.pipe(Layer.provide(Builtins.layer()))),
    Layer.provideMerge(Memory.layerMemory),
    Layer.provideMerge(Layer.mergeAll(PermissionBridge.layer, CallIds.layer, EditorHost.layer)),
  )
  const runtime = ManagedRuntime.make(
    options.mcp === true ? Layer.merge(layer, McpServers.layer({ log: () => undefined })) : layer,
  )
  runtimes.push(runtime)
  const connect = () => {
    const wire = makeWire()
    void runtime.runPromise(
      Effect.flatMap(
        AcpServer.make({
          version: "0.0.0",
          log: () => undefined,
          ...(options.doctor === undefined ? {} : { doctor: options.doctor }),
        }),
        (s) => s.serve(wire.agent),
      ),
    )
    return wire
  }
  const log = (id: string) => runtime.runPromise(Effect.flatMap(SessionStore.SessionStore, (s) => s.read(SessionId.make(id))))
  return { cwd, connect, log }
}
