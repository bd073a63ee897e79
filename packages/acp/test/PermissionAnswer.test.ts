/**
 * An editor's answer to a permission request that is not a permission outcome
 * (`{}`, `null`: the SDK does not check answers) counts as a rejection: the
 * tool does not run, the model sees PERMISSION_DENIED, and the turn goes on
 * and ends in the log.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as acp from "@agentclientprotocol/sdk"
import { Effect, Layer, ManagedRuntime, Ref, Stream } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { Builtins } from "@turnlog/agent"
import * as Loop from "@turnlog/agent/Loop"
import { LlmAdapter } from "@turnlog/llm"
import { SessionId, type StreamChunk } from "@turnlog/protocol"
import { Memory, SessionStore } from "@turnlog/store"
import { AcpServer, PermissionBridge } from "@turnlog/acp"
import { makeWire } from "./wire.js"

const scripted = (calls: ReadonlyArray<ReadonlyArray<StreamChunk>>) =>
  Layer.effect(
    LlmAdapter.LlmAdapter,
    Effect.map(Ref.make(0), (n) => ({
      stream: () =>
        Stream.unwrap(Effect.map(Ref.getAndUpdate(n, (i) => i + 1), (i) => {
          const call = calls[i]
          if (call === undefined) throw new Error(`no scripted call ${i + 1}`)
          return Stream.fromIterable(call)
        })),
    })),
  )

const dirs: Array<string> = []
const runtimes: Array<{ dispose: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()))
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const start = (calls: ReadonlyArray<ReadonlyArray<StreamChunk>>) => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-acp-answer-")))
  dirs.push(cwd)
  const layer = Loop.layer({ model: "scripted/test" }).pipe(
    Layer.provide(Layer.mergeAll(scripted(calls), Builtins.layer(), PermissionBridge.layerPermissions)),
    Layer.provideMerge(Memory.layerMemory),
    Layer.provideMerge(PermissionBridge.layer),
  )
  const runtime = ManagedRuntime.make(layer)
  runtimes.push(runtime)
  const wire = makeWire()
  void runtime.runPromise(
    Effect.flatMap(AcpServer.make({ version: "0.0.0", log: () => undefined }), (s) => s.serve(wire.agent)),
  )
  const log = (id: string) =>
    runtime.runPromise(Effect.flatMap(SessionStore.SessionStore, (s) => s.read(SessionId.make(id))))
  return { cwd, wire, log }
}

const args = '{"path":"a.txt","content":"x"}'
const write: Array<StreamChunk> = [
  { type: "block-start", index: 0, blockType: "tool-call" },
  { type: "tool-call-delta", index: 0, id: "call_w", name: "write_file", argumentsDelta: args },
  { type: "block-end", index: 0, block: { type: "tool-call", id: "call_w", name: "write_file", arguments: args } },
  { type: "finish", reason: { kind: "tool-calls" } },
]
const done: Array<StreamChunk> = [
  { type: "block-start", index: 0, blockType: "text" },
  { type: "text-delta", index: 0, text: "Not written." },
  { type: "block-end", index: 0, block: { type: "text", text: "Not written." } },
  { type: "finish", reason: { kind: "stop" } },
]

describe("a permission answer that is not a RequestPermissionResponse", () => {
  for (const [name, answer] of [["{}", {}], ["null", null]] as const) {
    it(`answer ${name} is a rejection: the turn goes on and ends, the log closes it`, async () => {
      const h = start([write, done])
      const [outcome, id] = await acp.client({ name: "test" })
        .onNotification("session/update", () => undefined)
        .onRequest("session/request_permission", () => answer as unknown as acp.RequestPermissionResponse)
        .connectWith(h.wire.client, async (ctx) => {
          await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
          const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
          const outcome = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write" }] })
            .then(
              (r): unknown => r,
              (e: { code: number; message: string }) => ({ code: e.code, message: e.message.split("\n")[0] }),
            )
          return [outcome, sessionId] as const
        })
      const log = await h.log(id)
      const shape = log.events.flatMap((e) =>
        e.type === "assistant/chunk" ? [] : e.type === "tool/result" ? [`tool/result ${e.data.code}`] : [e.type]
      )
      expect({ outcome, shape }).toEqual({
        outcome: { stopReason: "end_turn" },
        shape: [
          "turn/start",
          "user/message",
          "request/start",
          "assistant/message",
          "tool/call",
          "tool/result PERMISSION_DENIED",
          "request/start",
          "assistant/message",
          "turn/end",
        ],
      })
    })
  }
})
