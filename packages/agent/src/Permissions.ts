/**
 * Who decides whether a tool call may write or run a command. The loop asks
 * after the call is durable (`tool/call`) and before it runs; a denial is an
 * error result the model sees, never the end of the turn. The ACP server
 * answers through `layerAsk` by asking the editor.
 */
import { Context, Effect, Layer } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"

export type Decision = "allow" | "deny"

export interface Request {
  readonly sessionId: SessionId
  readonly callId: string
  readonly tool: string
  /** `mode`: the call changes the session's mode (`exit_plan_mode`); the user is always asked. */
  readonly kind: "write" | "command" | "mode"
  /** One line to show, e.g. `Write src/a.ts` or `Run npm test`. */
  readonly title: string
  /** The call's decoded arguments. */
  readonly input: unknown
}

/**
 * What a session's mode decides without asking anyone: `undefined` leaves the
 * call to the permission service (it asks, or answers by its own standing).
 */
export const byMode = (mode: SessionLog.Mode, kind: Request["kind"]): Decision | undefined => {
  if (kind === "mode") return undefined
  switch (mode) {
    case "ask":
      return undefined
    case "read-only":
      return "deny"
    case "auto-edit":
      return kind === "write" ? "allow" : undefined
    case "full-access":
      return "allow"
  }
}

/** The decision for a call in a session of `mode`: the mode's when it has one, else the service's. */
export const decideIn = (service: Service, mode: SessionLog.Mode, request: Request): Effect.Effect<Decision> => {
  const preset = byMode(mode, request.kind)
  return preset === undefined ? service.decide(request) : Effect.succeed(preset)
}

export interface Service {
  readonly decide: (request: Request) => Effect.Effect<Decision>
}

export class Permissions extends Context.Tag("@turnlog/agent/Permissions")<Permissions, Service>() {}

export const layerAllowAll: Layer.Layer<Permissions> = Layer.succeed(Permissions, {
  decide: () => Effect.succeed("allow"),
})

export const layerDenyAll: Layer.Layer<Permissions> = Layer.succeed(Permissions, {
  decide: () => Effect.succeed("deny"),
})

/**
 * Asks `ask` for every decision. Its requirements are captured when the layer
 * is built, so the loop needs nothing more to call it.
 */
export const layerAsk = <R = never>(
  ask: (request: Request) => Effect.Effect<Decision, never, R>,
): Layer.Layer<Permissions, never, R> =>
  Layer.effect(
    Permissions,
    Effect.map(Effect.context<R>(), (context) => ({
      decide: (request: Request) => Effect.provide(ask(request), context),
    })),
  )
