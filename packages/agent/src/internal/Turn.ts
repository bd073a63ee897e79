/**
 * One turn: the user's message, then steps — a provider request whose chunks
 * are logged before they are assembled (`Step`, `Attempt`), and the tool
 * calls it asked for (`ToolCalls`) — until the model stops, the output limit
 * cuts it off, it fails, the user cancels, or the step budget is spent. Every
 * way out writes `turn/end`, so a turn left open in the log means the process
 * died.
 */
import { Effect } from "effect"
import type { ContentBlock } from "@turnlog/protocol"
import type { StoreError } from "@turnlog/store"
import * as Events from "./Events.js"
import * as Step from "./Step.js"
import * as ToolCalls from "./ToolCalls.js"
import * as TurnContext from "./TurnContext.js"

/** Step `step` and the ones after it. */
const steps = (deps: TurnContext.TurnDeps, step: number): Effect.Effect<void, StoreError.StoreError> =>
  Effect.gen(function*() {
    const outcome = yield* Step.run(deps, step)
    if (outcome._tag === "ended") return
    if (!(yield* ToolCalls.run(deps, outcome.calls))) return
    // A cancel that came while the step's last call ran ends the turn as cancelled, even on its last step.
    if (yield* TurnContext.isCancelled(deps)) return yield* TurnContext.end(deps, "cancelled")
    if (step >= deps.config.maxSteps) return yield* TurnContext.end(deps, "max-steps")
    return yield* steps(deps, step + 1)
  })

export const run = (
  deps: TurnContext.TurnDeps,
  content: ReadonlyArray<ContentBlock>,
): Effect.Effect<void, StoreError.StoreError> =>
  Effect.gen(function*() {
    yield* deps.writer.log([Events.turnStart(), Events.userMessage(content)])
    yield* deps.emit({ type: "turn-start" })
    yield* steps(deps, 1)
  })
