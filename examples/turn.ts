// Run one agent turn: the JSONL store in a temporary home, a scripted model
// (no key, no network) that asks for write_file and then answers, the
// built-in tools and allow-all permissions. The store is shared with the
// program (provideMerge) so it can read the durable log the turn wrote.
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Chunk, Effect, Layer, Stream } from "effect"
import { AgentLoop, Builtins, Permissions } from "@turnlog/agent"
import { ChunkScript, Scripted } from "@turnlog/llm"
import { Jsonl, SessionStore } from "@turnlog/store"

const home = mkdtempSync(join(tmpdir(), "turnlog-example-"))
const cwd = mkdtempSync(join(tmpdir(), "turnlog-example-cwd-"))

const model = Scripted.layerScripted([
  ChunkScript.response([ChunkScript.toolCall("call_1", "write_file", { path: "hello.txt", content: "hi\n" })]),
  ChunkScript.response([ChunkScript.text("Wrote hello.txt.")]),
])

const layer = AgentLoop.layer({ model: "scripted/example" }).pipe(
  Layer.provide(Layer.mergeAll(model, Builtins.layer(), Permissions.layerAllowAll)),
  Layer.provideMerge(Jsonl.layerJsonl({ home })),
)

const program = Effect.gen(function*() {
  const loop = yield* AgentLoop.AgentLoop
  const store = yield* SessionStore.SessionStore
  const id = yield* loop.createSession({ cwd })
  const updates = yield* Stream.runCollect(loop.prompt(id, "Write hello.txt"))
  const log = yield* store.read(id)
  return {
    updates: Chunk.toReadonlyArray(updates).map((u) => (u.type === "turn-end" ? `turn-end ${u.reason}` : u.type)),
    events: log.events.map((event) => event.type),
    file: readFileSync(join(cwd, "hello.txt"), "utf8"),
  }
})

console.log(JSON.stringify(await Effect.runPromise(Effect.scoped(Effect.provide(program, layer)))))
