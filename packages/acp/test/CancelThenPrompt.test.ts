/**
 * A client that sends session/cancel and then its next session/prompt without
 * waiting for the cancelled prompt's answer: the cancelled prompt answers
 * `cancelled`, and the new one waits for that turn to close, then runs.
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

type Call = { readonly chunks: ReadonlyArray<StreamChunk>; readonly hang?: boolean }

const scripted = (calls: ReadonlyArray<Call>) =>
  Layer.effect(
    LlmAdapter.LlmAdapter,
    Effect.map(Ref.make(0), (n) => ({
      stream: () =>
        Stream.unwrap(Effect.map(Ref.getAndUpdate(n, (i) => i + 1), (i) => {
          const call = calls[i]
          if (call === undefined) throw new Error(`no scripted call ${i + 1}`)
          const played = Stream.fromIterable(call.chunks)
          return call.hang === true ? Stream.concat(played, Stream.never) : played
        })),
    })),
  )

const dirs: Array<string> = []
const runtimes: Array<{ dispose: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()))
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const start = (calls: ReadonlyArray<Call>) => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-acp-cancel-")))
  dirs.push(cwd)
  const layer = Loop.layer({ model: "scripted/test" }).pipe(
    Layer.provide(Layer.mergeAll(scripted(calls), Builtins.layer(), PermissionBridge.layerPermissions)),
    Layer.provideMerge(Memory.layerMemory),
    Layer.provideMerge(PermissionBridge.layer),
  )
  const runtime = ManagedRuntime.make(layer)
  runtimes.push(runtime)
  const wire = makeWire()
  const served = runtime.runPromise(
    Effect.flatMap(AcpServer.make({ version: "0.0.0", log: () => undefined }), (s) => s.serve(wire.agent)),
  )
  const log = (id: string) =>
    runtime.runPromise(Effect.flatMap(SessionStore.SessionStore, (s) => s.read(SessionId.make(id))))
  return { cwd, wire, served, log }
}

const waitFor = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 2))
}

describe("session/cancel followed at once by a new session/prompt", () => {
  it("the new prompt waits for the cancelled turn to close, then runs", async () => {
    const h = start([
      { chunks: [{ type: "block-start", index: 0, blockType: "text" }, { type: "text-delta", index: 0, text: "Once" }], hang: true },
      {
        chunks: [
          { type: "block-start", index: 0, blockType: "text" },
          { type: "text-delta", index: 0, text: "Short." },
          { type: "block-end", index: 0, block: { type: "text", text: "Short." } },
          { type: "finish", reason: { kind: "stop" } },
        ],
      },
    ])
    const updates: Array<unknown> = []
    const [first, second, sessionId] = await acp.client({ name: "test" })
      .onNotification("session/update", ({ params }) => {
        updates.push(params)
      })
      .connectWith(h.wire.client, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
        const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
        const first = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "story" }] })
        await waitFor(() => updates.length > 0)
        await ctx.notify("session/cancel", { sessionId })
        const second = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "short one" }] }).then(
          (r) => r,
          (e: { code: number; message: string }) => ({ code: e.code, message: e.message }),
        )
        return [await first, await second, sessionId] as const
      })
    expect(first).toEqual({ stopReason: "cancelled" })
    expect(second).toEqual({ stopReason: "end_turn" })
    const { events } = await h.log(sessionId)
    expect(events.filter((e) => e.type === "turn/end").map((e) => e.data.reason)).toEqual(["cancelled", "completed"])
  })
})
