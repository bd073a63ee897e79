/**
 * A small `AgentLoop` for testing the server alone: each prompt plays the next
 * scripted turn, which may wait for a cancel or ask a permission through the
 * `Permissions` service the real loop uses.
 */
import { Deferred, Effect, Layer, Ref, Stream } from "effect"
import { AgentLoop, Permissions } from "@turnlog/agent"
import { type ContentBlock, SessionId } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"
import { SessionNotFound } from "@turnlog/store/StoreError"

export interface TurnContext {
  readonly sessionId: string
  /** Resolves when the turn is cancelled. */
  readonly cancelled: Effect.Effect<void>
  readonly ask: (tool: string, kind: "write" | "command", input: unknown, callId: string) => Effect.Effect<boolean>
}

export type Turn = (context: TurnContext) => Stream.Stream<AgentLoop.AgentUpdate, AgentLoop.AgentError>

export interface Fake {
  readonly prompts: Ref.Ref<ReadonlyArray<{ readonly sessionId: string; readonly content: unknown }>>
  readonly layer: Layer.Layer<AgentLoop.AgentLoop, never, Permissions.Permissions>
  /** The modes set, in order. */
  readonly modes: Ref.Ref<ReadonlyArray<{ readonly sessionId: string; readonly mode: string }>>
}

export const make = (
  turns: ReadonlyArray<Turn>,
  stored: ReadonlyMap<string, SessionStore.LoadedSession> = new Map(),
) =>
  Effect.gen(function*() {
    const prompts = yield* Ref.make<ReadonlyArray<{ readonly sessionId: string; readonly content: unknown }>>([])
    const modes = yield* Ref.make<ReadonlyArray<{ readonly sessionId: string; readonly mode: string }>>([])
    const layer = Layer.effect(
      AgentLoop.AgentLoop,
      Effect.gen(function*() {
        const permissions = yield* Permissions.Permissions
        let created = 0
        let next = 0
        const running = new Map<string, Deferred.Deferred<void>>()
        return AgentLoop.AgentLoop.of({
          createSession: () => Effect.sync(() => SessionId.make(`session-${++created}`)),
          compact: () => Effect.succeed({ _tag: "nothing-to-cut" as const, tokens: 0 }),
          load: (id) => {
            const found = stored.get(id)
            return found === undefined ? Effect.fail(new SessionNotFound({ sessionId: id })) : Effect.succeed(found)
          },
          prompt: (id, content: string | ReadonlyArray<ContentBlock>) =>
            Stream.unwrap(Effect.gen(function*() {
              if (running.has(id)) return Stream.fail(new AgentLoop.AgentBusy({ sessionId: id }))
              yield* Ref.update(prompts, (all) => [...all, { sessionId: id, content }])
              const turn = turns[next++]
              if (turn === undefined) return Stream.die(new Error("no scripted turn left"))
              const cancelled = yield* Deferred.make<void>()
              running.set(id, cancelled)
              const context: TurnContext = {
                sessionId: id,
                cancelled: Deferred.await(cancelled),
                ask: (tool, kind, input, callId) =>
                  permissions.decide({ sessionId: id, callId, tool, kind, title: tool, input }).pipe(
                    Effect.map((decision) => decision === "allow"),
                  ),
              }
              return turn(context).pipe(Stream.ensuring(Effect.sync(() => running.delete(id))))
            })),
          release: () => Effect.succeed(undefined),
          contextUsage: () => Effect.succeed(undefined),
          setMode: (id, mode) => Ref.update(modes, (all) => [...all, { sessionId: id, mode }]),
          setReasoning: () => Effect.void,
          reasons: () => false,
          cancel: (id) =>
            Effect.suspend(() => {
              const d = running.get(id)
              return d === undefined ? Effect.void : Deferred.succeed(d, undefined)
            }),
        })
      }),
    )
    return { prompts, layer, modes } satisfies Fake
  })
