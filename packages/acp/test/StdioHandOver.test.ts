/**
 * The server's stream when the command line has already read, and answered,
 * the editor's `initialize`: the bytes read are served again ahead of stdin,
 * the server's own answer to that request is not sent a second time, and an
 * answer that differs from the one sent is said on stderr.
 */
import { PassThrough } from "node:stream"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { Builtins } from "@turnlog/agent"
import { Memory } from "@turnlog/store"
import { AcpServer, CallIds, EditorHost, Modes, PermissionBridge, Stdio } from "@turnlog/acp"
import * as FakeLoop from "./fakeLoop.js"

const PROJECT = process.cwd()
const runtimes: Array<ManagedRuntime.ManagedRuntime<unknown, unknown>> = []
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.dispose()
})

const line = (message: unknown) => `${JSON.stringify(message)}\n`
const initialize = line({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })
const sessionNew = line({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: PROJECT, mcpServers: [] } })
const sessionList = line({ jsonrpc: "2.0", id: 2, method: "session/list", params: {} })

/**
 * Serves `prefix` then `rest` (written to stdin once the prefix has been
 * served: a frame written or a line logged), and returns every frame written
 * and every line logged.
 */
const serve = async (prefix: string, answered: Stdio.Answered | undefined, rest: string) => {
  const fake = await Effect.runPromise(FakeLoop.make([]))
  const layer = fake.layer.pipe(
    Layer.provide(PermissionBridge.layerPermissions),
    Layer.provideMerge(Layer.mergeAll(PermissionBridge.layer, CallIds.layer, EditorHost.layer, Builtins.layer(), Memory.layerMemory)),
  )
  const runtime = ManagedRuntime.make(layer)
  runtimes.push(runtime as ManagedRuntime.ManagedRuntime<unknown, unknown>)
  const input = new PassThrough()
  const output = new PassThrough()
  let written = ""
  output.setEncoding("utf8").on("data", (text: string) => (written += text))
  const logs: Array<string> = []
  const stream = Stdio.stream(input, output, {
    log: (text) => logs.push(text),
    prefix: new TextEncoder().encode(prefix),
    ...(answered === undefined ? {} : { answered }),
  })
  const served = runtime.runPromise(Effect.flatMap(AcpServer.make({ version: "9.9.9", log: (text) => logs.push(text) }), (s) => s.serve(stream)))
  const frames = () => written.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { id?: unknown })
  while (frames().length + logs.length < 1) await new Promise((r) => setTimeout(r, 1))
  input.end(rest)
  await served
  return { frames: frames(), logs }
}

const answer = (version: string) => JSON.stringify({ jsonrpc: "2.0", id: 0, result: AcpServer.initializeResponse(version) })

describe("a stream handed over after an early answer to initialize", () => {
  it("serves the bytes read first, then stdin, and does not answer initialize again", async () => {
    const { frames, logs } = await serve(initialize + sessionNew, { id: 0, frame: answer("9.9.9") }, sessionList)
    expect(frames).toEqual([
      { jsonrpc: "2.0", id: 1, result: { sessionId: "session-1", modes: { currentModeId: "ask", availableModes: Modes.available } } },
      { jsonrpc: "2.0", id: 2, result: { sessions: [] } },
    ])
    expect(logs).toEqual([])
  })

  it("says on stderr when the server's answer differs from the one sent early", async () => {
    const { frames, logs } = await serve(initialize, { id: 0, frame: answer("1.0.0") }, sessionNew)
    expect(frames.map((f) => f.id)).toEqual([1])
    expect(logs).toEqual([`the answer to request 0 sent early differs from the server's: ${answer("9.9.9")}`])
  })

  it("answers initialize itself when nothing was answered early", async () => {
    const { frames, logs } = await serve(initialize, undefined, sessionNew)
    expect(frames[0]).toEqual(JSON.parse(answer("9.9.9")))
    expect(frames.map((f) => f.id)).toEqual([0, 1])
    expect(logs).toEqual([])
  })
})
