/**
 * The answer room: the answer budget the adapter will put on the wire for a
 * request (`LlmAdapter.answerRoom`: pi-ai clamps it to what it estimates is
 * left of the window), held against the budget an answer should get. The loop
 * compacts before a request that would get less, cuts so that the request
 * after the compaction gets it, and sizes the summary's parts so that each
 * summary request gets its own. An adapter that cannot measure a request
 * leaves all of it to the loop's own estimate (`Compaction.decide`).
 */
import { Chunk, Effect } from "effect"
import { Compaction } from "@turnlog/history"
import type { LlmAdapter } from "@turnlog/llm"
import { SessionLog } from "@turnlog/protocol"
import type { Budget } from "./Compact.js"
import * as Events from "./Events.js"
import * as Request from "./Request.js"
import type { TurnDeps } from "./TurnContext.js"

/** What the room of one request is held to; absent when the adapter cannot measure requests. */
export interface Target {
  /** The answer budget a conversation request should get. */
  readonly answer: number
  /** The answer budget a summary request asks for (and should get). */
  readonly summary: number
}

/** Enough tries to walk a long history's cut points by halving, and to settle a part size. */
const MAX_TRIES = 24

/** The room the adapter grants `request`; undefined when it cannot tell. */
export const of = (deps: TurnDeps, request: LlmAdapter.LlmRequest): Effect.Effect<number | undefined> =>
  deps.adapter.answerRoom === undefined ? Effect.succeed(undefined) : deps.adapter.answerRoom(request)

/** The answer budget of a summary request: most of the reserve, within the model's output limit. */
export const summaryTokens = (b: Budget): number => Math.min(Compaction.summaryMaxTokens(b.settings.reserveTokens), b.info.maxTokens)

/**
 * What an answer should get: the configured `maxTokens`, else the model's.
 * A budget that even a request with no history would not get (a model whose
 * output limit is its whole window) is held to half of that request's room
 * instead, so that the loop does not compact before every request.
 */
export const target = (deps: TurnDeps, b: Budget): Effect.Effect<Target | undefined> =>
  Effect.gen(function*() {
    if (deps.adapter.answerRoom === undefined) return undefined
    const empty = { ...Request.of(deps, Chunk.empty(), b.limitChars), maxTokens: Number.MAX_SAFE_INTEGER }
    const most = yield* of(deps, empty)
    if (most === undefined) return undefined
    const wanted = deps.config.maxTokens ?? b.info.maxTokens
    const ceiling = Math.max(1, Math.floor(most / 2))
    return { answer: Math.min(wanted, ceiling), summary: Math.min(summaryTokens(b), ceiling) }
  })

/** A summary as long as a summary request may answer: the most a compaction can put back. */
const largestSummary = (tokens: number): string => "x".repeat(tokens * Compaction.CHARS_PER_TOKEN)

/** The conversation request that would follow a compaction at `cut` with the largest summary. */
const afterCut = (
  deps: TurnDeps,
  b: Budget,
  t: Target,
  events: ReadonlyArray<SessionLog.SessionEvent>,
  cut: Compaction.Cut,
): LlmAdapter.LlmRequest => {
  const { provider, model } = deps.journal.route
  const nextSeq = (events[events.length - 1]?.seq ?? 0) + 1
  const compaction = SessionLog.stamp(nextSeq, [Events.compaction({
    summary: largestSummary(t.summary),
    firstKeptSeq: cut.firstKeptSeq,
    tokensBefore: 0,
    tokensAfter: 0,
    provider,
    model,
  })])
  return Request.of(deps, Chunk.fromIterable([...events, ...compaction]), b.limitChars)
}

/**
 * The cut of a compaction: the one `keepRecentTokens` asks for, moved later
 * (keeping less verbatim) while the request after the compaction would leave
 * the answer less than its target — also when the whole history is within
 * `keepRecentTokens`. Undefined when there is nothing to cut.
 */
export const cut = (
  deps: TurnDeps,
  b: Budget,
  t: Target | undefined,
  events: ReadonlyArray<SessionLog.SessionEvent>,
): Effect.Effect<Compaction.Cut | undefined> =>
  Effect.gen(function*() {
    let chosen = Compaction.selectCut(events, b.settings.keepRecentTokens, b.limitChars)
    if (t === undefined) return chosen
    const roomAfter = (c: Compaction.Cut | undefined) =>
      of(deps, c === undefined ? Request.of(deps, Chunk.fromIterable(events), b.limitChars) : afterCut(deps, b, t, events, c))
    let room = yield* roomAfter(chosen)
    for (let tries = 0; room !== undefined && room < t.answer && tries < MAX_TRIES; tries++) {
      // Keep less by what is missing; when no cut falls there, halve until one does.
      let keep = Math.max(0, (chosen?.keptTokens ?? b.settings.keepRecentTokens) - (t.answer - room))
      let later: Compaction.Cut | undefined
      for (; tries < MAX_TRIES; tries++) {
        const next = Compaction.selectCut(events, keep, b.limitChars)
        if (next !== undefined && (chosen === undefined || next.firstKeptSeq > chosen.firstKeptSeq)) {
          later = next
          break
        }
        if (keep === 0) break
        keep = Math.floor(keep / 2)
      }
      if (later === undefined) return chosen
      chosen = later
      room = yield* roomAfter(chosen)
    }
    return chosen
  })

/** The request of one summary part. No session id: its one-message history must not replace the adapter's memo of the conversation. */
export const summaryRequest = (
  deps: TurnDeps,
  b: Budget,
  part: string,
  previousSummary: string | undefined,
  focus?: string,
): LlmAdapter.LlmRequest => {
  const asked = Compaction.summaryRequest(part, previousSummary, b.settings.reserveTokens, focus)
  return {
    provider: deps.journal.route.provider,
    model: deps.journal.route.model,
    system: asked.system,
    messages: asked.messages,
    maxTokens: Math.min(asked.maxTokens, b.info.maxTokens),
  }
}

/**
 * The summary's parts, each small enough that its request gets the summary's
 * whole answer budget: the parts `Compaction.summaryParts` makes for the
 * window, made for a smaller one while a part's request would get less (a
 * part after the first measured with the largest summary before it).
 */
export const parts = (
  deps: TurnDeps,
  b: Budget,
  t: Target | undefined,
  c: Compaction.Cut,
): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function*() {
    const reserve = b.settings.reserveTokens
    let window = b.info.contextWindow
    let made = Compaction.summaryParts(c, window, reserve)
    if (t === undefined) return made
    const later = largestSummary(Math.max(t.summary, Compaction.tokensOfChars(c.previousSummary?.length ?? 0)))
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      let missing = 0
      for (const [k, part] of made.entries()) {
        const room = yield* of(deps, summaryRequest(deps, b, part, k === 0 ? c.previousSummary : later))
        if (room !== undefined && room < t.summary) missing = Math.max(missing, t.summary - room)
      }
      if (missing === 0) return made
      window -= missing
      const smaller = Compaction.summaryParts(c, window, reserve)
      // The parts are at their smallest: nothing more to gain.
      if (smaller.length === made.length && smaller.every((p, i) => p.length === made[i]!.length)) return made
      made = smaller
    }
    return made
  })
