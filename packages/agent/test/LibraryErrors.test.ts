// The loop as a library: a failure it expects (an unknown session, a model
// whose key is not set) is a typed error that prints as one sentence, and a
// session whose model cannot be used is refused before the store makes it.
import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Either, Layer, Stream } from "effect"
import { LlmAdapter, ReplayDiagnostics, Scripted } from "@turnlog/llm"
import { PiAiAdapter } from "@turnlog/llm-pi-ai"
import { SessionId } from "@turnlog/protocol"
import { Jsonl, SessionStore } from "@turnlog/store"
import { Loopback } from "@turnlog/testkit"
import * as AgentLoop from "../src/AgentLoop.js"
import * as Permissions from "../src/Permissions.js"
import * as Tools from "../src/Tools.js"
import { tempDir } from "./support/harness.js"
import { configFor, KEY_ENV, modelOf } from "./support/piAi.js"

/** The loop over a JSONL store in `home` and `llm`. */
const loopOver = (home: string, llm: Layer.Layer<LlmAdapter.LlmAdapter, unknown>, model: string) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      AgentLoop.layer({ model }).pipe(Layer.provideMerge(Layer.mergeAll(
        llm,
        Jsonl.layerJsonl({ home }),
        Tools.layer([]),
        Permissions.layerAsk(() => Effect.succeed("allow" as const)),
      ))),
    )
    return { loop: Context.get(context, AgentLoop.AgentLoop), store: Context.get(context, SessionStore.SessionStore) }
  })

/** How a caller that runs the effect as a promise sees its failure printed. */
const printed = (effect: Effect.Effect<unknown, unknown>) =>
  Effect.promise(() => Effect.runPromise(effect).then(() => "succeeded", (error: unknown) => String(error)))

describe("an unknown session id", () => {
  it.scoped("is SessionNotFound, printed as one line, from prompt, load and compact", () =>
    Effect.gen(function*() {
      const home = yield* tempDir("turnlog-home-")
      const scripted = yield* Scripted.make([])
      const { loop } = yield* loopOver(home, Layer.succeed(LlmAdapter.LlmAdapter, scripted.adapter), "scripted/test-model")
      const id = SessionId.make("20261202T000000-0badc0de")
      const failed = yield* Effect.either(Stream.runCollect(loop.prompt(id, "hi")))
      expect(Either.isLeft(failed) && failed.left).toMatchObject({ _tag: "SessionNotFound", sessionId: id })
      const line = "(FiberFailure) SessionNotFound: session 20261202T000000-0badc0de not found"
      expect(yield* printed(Stream.runCollect(loop.prompt(id, "hi")))).toBe(line)
      expect(yield* printed(loop.load(id))).toBe(line)
      expect(yield* printed(loop.compact(id))).toBe(line)
    }))
})

describe("a new session on a model whose key is not set", () => {
  it.scopedLive("is refused with ModelUnavailable naming the variable to set, and nothing is stored", () =>
    Effect.gen(function*() {
      const home = yield* tempDir("turnlog-home-")
      const server = yield* Loopback.make
      const keyless = PiAiAdapter.layerPiAi(configFor(server.baseUrl), { env: {} }).pipe(
        Layer.provide(ReplayDiagnostics.layerSilent),
      )
      const model = modelOf("openai-completions")
      const { loop, store } = yield* loopOver(home, keyless, model)
      const sentence = `no credential for ${model}: set the environment variable ${KEY_ENV}`
      const refused = yield* Effect.either(loop.createSession({ cwd: home }))
      expect(Either.isLeft(refused) && refused.left).toMatchObject({
        _tag: "ModelUnavailable",
        failure: { code: "MISSING_CREDENTIAL", message: sentence },
      })
      expect(yield* printed(loop.createSession({ cwd: home }))).toBe(`(FiberFailure) ModelUnavailable: ${sentence}`)
      expect((yield* store.list()).sessions).toEqual([])
      expect(fs.readdirSync(home).flatMap((d) => fs.readdirSync(`${home}/${d}`))).toEqual([])
      expect(server.requests()).toEqual([])
    }))
})

describe("a prompt on a stored session whose model's key is not set", () => {
  it.scopedLive("is refused with ModelUnavailable naming the session, before the turn begins: nothing appended, no request", () =>
    Effect.gen(function*() {
      const home = yield* tempDir("turnlog-home-")
      const server = yield* Loopback.make
      const model = modelOf("openai-completions")
      const keyed = PiAiAdapter.layerPiAi(configFor(server.baseUrl), { env: { [KEY_ENV]: "sk-loopback-key" } }).pipe(
        Layer.provide(ReplayDiagnostics.layerSilent),
      )
      const first = yield* loopOver(home, keyed, model)
      server.enqueue({ blocks: [{ type: "text", text: "Hello." }] })
      const id = yield* first.loop.createSession({ cwd: home })
      yield* Stream.runDrain(first.loop.prompt(id, "hi"))
      yield* first.loop.release(id)
      const stored = (yield* first.store.read(id)).events.length

      const keyless = PiAiAdapter.layerPiAi(configFor(server.baseUrl), { env: {} }).pipe(
        Layer.provide(ReplayDiagnostics.layerSilent),
      )
      const { loop, store } = yield* loopOver(home, keyless, model)
      const refused = yield* Effect.either(Stream.runDrain(loop.prompt(id, "again")))
      expect(Either.isLeft(refused) && refused.left).toMatchObject({
        _tag: "ModelUnavailable",
        sessionId: id,
        failure: { code: "MISSING_CREDENTIAL", message: `no credential for ${model}: set the environment variable ${KEY_ENV}` },
      })
      expect((yield* store.read(id)).events.length).toBe(stored)
      expect(server.requests()).toHaveLength(1)
      // The session is not left busy: the next prompt is refused the same way, not as a turn in progress.
      const again = yield* Effect.either(Stream.runDrain(loop.prompt(id, "again")))
      expect(Either.isLeft(again) && again.left._tag).toBe("ModelUnavailable")
    }))
})
