/**
 * One turn: the user's message, then steps — a provider request whose chunks
 * are logged before they are assembled (`Step`, `Attempt`), and the tool
 * calls it asked for (`ToolCalls`) — until the model stops, the output limit
 * cuts it off, it fails, the user cancels, or the step budget is spent. Every
 * way out writes `turn/end`, so a turn left open in the log means the process
 * died.
 */
import { Effect, Either } from "effect"
import { Compaction } from "@turnlog/history"
import type { ContentBlock, Failure, Message } from "@turnlog/protocol"
import type { StoreError } from "@turnlog/store"
import * as Compact from "./Compact.js"
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

export const PROMPT_TOO_LARGE = "PROMPT_TOO_LARGE"
export const TOOLS_TOO_LARGE = "TOOLS_TOO_LARGE"

/**
 * When the system prompt and tools leave no room for any prompt: the tools
 * that come from somewhere (an MCP server), by what they cost, most first.
 */
const originCosts = (deps: TurnContext.TurnDeps): Array<{ origin: string; tokens: number; count: number }> => {
  const origins = deps.tools.origins
  if (origins === undefined || origins.size === 0) return []
  const groups = new Map<string, Array<unknown>>()
  for (const spec of deps.tools.specs) {
    const origin = origins.get(spec.name)
    if (origin !== undefined) groups.set(origin, [...(groups.get(origin) ?? []), spec])
  }
  return [...groups].map(([origin, specs]) => ({
    origin,
    tokens: Compaction.tokensOfChars(JSON.stringify(specs).length),
    count: specs.length,
  })).sort((a, b) => b.tokens - a.tokens)
}

/**
 * Why a prompt cannot be sent even with nothing before it: it and what every
 * request carries leave the answer less than a quarter of the reserve. Such a
 * prompt is never logged: logged, it would make every later request of the
 * session too large as well.
 */
const tooLarge = (deps: TurnContext.TurnDeps, message: Message): Failure | undefined => {
  const budget = Compact.budget(deps)
  if (Either.isLeft(budget) || budget.right === undefined) return undefined
  const { fixedTokens, info, settings } = budget.right
  const prompt = Compaction.messageTokens(message)
  const answer = Math.ceil(settings.reserveTokens / 4)
  if (prompt + fixedTokens + answer <= info.contextWindow) return undefined
  const { provider, model } = deps.journal.route
  const costs = fixedTokens + answer > info.contextWindow ? originCosts(deps) : []
  if (costs.length > 0) {
    const named = costs.map((c) => `${c.origin} (${c.count} tools, about ${c.tokens} tokens)`).join(", ")
    return {
      code: TOOLS_TOO_LARGE,
      message:
        `the tools of ${named} do not fit ${provider}/${model}'s context window of ${info.contextWindow} tokens (${fixedTokens} tokens taken by the system prompt and all tools, ${answer} kept for the answer): no prompt fits beside them, so this one was neither sent nor logged; leave ${
          costs.length === 1 ? "that server" : "the largest"
        } out of the session or choose a model with a larger window`,
    }
  }
  return {
    code: PROMPT_TOO_LARGE,
    message:
      `the prompt is about ${prompt} tokens and ${provider}/${model}'s context window is ${info.contextWindow} tokens (${fixedTokens} of them taken by the system prompt and tools, ${answer} kept for the answer): it cannot fit even in an empty context, so it was neither sent nor logged`,
  }
}

export const IMAGES_UNSUPPORTED = "IMAGES_UNSUPPORTED"

/**
 * Why a prompt's images cannot go to the session's model: its entry says it
 * takes text only. Such a prompt is neither sent nor logged. A model whose
 * entry is not known is sent the images as they are.
 */
const imagesRefused = (deps: TurnContext.TurnDeps, message: Message): Failure | undefined => {
  const images = message.content.filter((b) => b.type === "image").length
  if (images === 0) return undefined
  const { provider, model } = deps.journal.route
  const input = deps.adapter.modelInfo?.(provider, model)?.input
  if (input === undefined || input.includes("image")) return undefined
  return {
    code: IMAGES_UNSUPPORTED,
    message: `${provider}/${model} takes text only (its model entry's input has no "image"), so the prompt with ${
      images === 1 ? "an image" : `${images} images`
    } was neither sent nor logged; choose a model that takes images, or for a model of the config's providers add "input": ["text", "image"] to its entry`,
  }
}

export const run = (
  deps: TurnContext.TurnDeps,
  content: ReadonlyArray<ContentBlock>,
): Effect.Effect<void, StoreError.StoreError> =>
  Effect.gen(function*() {
    const user = Events.userMessage(content)
    const refused = imagesRefused(deps, user.data.message) ?? tooLarge(deps, user.data.message)
    if (refused !== undefined) {
      return yield* deps.emit({ type: "turn-end", reason: "error", failure: refused })
    }
    yield* deps.writer.log([Events.turnStart(), user])
    yield* deps.emit({ type: "turn-start" })
    yield* steps(deps, 1)
  })
