// Letting go of unused sessions, on the test clock: a session no prompt uses
// for `idleRelease` loses its lease (the lock file goes) and the loop's hold;
// a prompt in flight keeps it however long it runs; the next prompt opens it
// again and answers as before. The server runs over the real loop and the
// JSONL store; the client is the SDK's, over an in-memory pair of streams.
import { describe, expect, it } from "@effect/vitest"
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as acp from "@agentclientprotocol/sdk"
import { Effect, Layer, Runtime, TestClock } from "effect"
import { AgentLoop, Builtins } from "@turnlog/agent"
import { Jsonl } from "@turnlog/store"
import { AcpServer, CallIds, EditorHost, PermissionBridge } from "@turnlog/acp"
import { type Call, finish, scripted, text } from "./realLoop.js"
import { makeWire } from "./wire.js"

/** Real time, a little: lets the server's fibers and the client's promises run after the clock moved. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50))

const until = async (what: string, test: () => boolean) => {
  for (let i = 0; i < 400; i++) {
    if (test()) return
    await settle()
  }
  throw new Error(`timed out waiting for ${what}`)
}

const serve = (calls: ReadonlyArray<Call>, home: string, lines: Array<string>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      AgentLoop.layer({ model: "scripted/test" }).pipe(
        Layer.provide(Layer.mergeAll(scripted(calls), PermissionBridge.layerPermissions)),
        Layer.provideMerge(CallIds.layerTools.pipe(Layer.provide(Builtins.layer()))),
        Layer.provideMerge(Jsonl.layerJsonl({ home })),
        Layer.provideMerge(Layer.mergeAll(PermissionBridge.layer, CallIds.layer, EditorHost.layer)),
      ),
    )
    const wire = makeWire()
    const server = yield* AcpServer.make({ version: "0.0.0", log: (line) => void lines.push(line), idleRelease: "120 seconds" }).pipe(
      Effect.provide(context),
    )
    yield* Effect.forkScoped(server.serve(wire.agent))
    return wire
  })

describe("idle release", () => {
  it.scoped("lets go of a session unused for idleRelease, keeps one whose prompt runs, and reopens it for the next prompt", () =>
    Effect.gen(function*() {
      const home = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-acp-idle-")))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(home, { recursive: true, force: true })))
      const lines: Array<string> = []
      const wire = yield* serve(
        [
          { chunks: [...text(0, "One."), finish("stop")] },
          { chunks: text(0, "Still thinking"), stall: true },
          { chunks: [...text(0, "Three."), finish("stop")] },
        ],
        home,
        lines,
      )
      const runtime = yield* Effect.runtime<never>()
      const advance = (seconds: number) => Runtime.runPromise(runtime)(TestClock.adjust(`${seconds} seconds`))

      yield* Effect.promise(() =>
        acp.client({ name: "test" }).onNotification("session/update", () => undefined).connectWith(wire.client, async (ctx) => {
          await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
          const { sessionId } = await ctx.request("session/new", { cwd: home, mcpServers: [] })
          const lock = join(home, "sessions", `${sessionId}.lock`)
          const prompt = (value: string) => ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: value }] })
          expect(await prompt("first")).toMatchObject({ stopReason: "end_turn" })

          // Not yet: 119 s unused.
          await advance(119)
          await settle()
          expect(existsSync(lock)).toBe(true)
          await advance(1)
          await until("the lock file to go", () => !existsSync(lock))
          await until("the release to be said", () => lines.includes(`session ${sessionId}: unused for 120 s, let go until its next prompt`))

          // A prompt reopens it; while it runs, no time unused lets it go.
          const running = prompt("second")
          await until("the lock file to be back", () => existsSync(lock))
          await advance(300)
          await settle()
          expect(existsSync(lock)).toBe(true)
          await ctx.notify("session/cancel", { sessionId })
          expect(await running).toMatchObject({ stopReason: "cancelled" })

          // Answered: unused from now on.
          await advance(120)
          await until("the lock file to go again", () => !existsSync(lock))
          expect(await prompt("third")).toMatchObject({ stopReason: "end_turn" })
          expect(lines.filter((l) => l.endsWith("let go until its next prompt"))).toHaveLength(2)
          await wire.closeInput()
        })
      )
    }))
})
