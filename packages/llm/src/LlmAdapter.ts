/**
 * The contract between the agent loop and a model provider. An adapter turns a
 * request into a stream of `StreamChunk`s that never fails: every failure —
 * missing route, missing credential, a throw while dispatching, a provider
 * error — arrives as one terminal `finish` chunk of kind `error` (or `aborted`
 * when the request was interrupted), without replay state. Interrupting the
 * stream aborts the underlying request.
 */
import { Context, type Effect, type Stream } from "effect"
import type { Failure, Message, SessionId, StreamChunk } from "@turnlog/protocol"

/** A tool as the model sees it: a name, a description, JSON-Schema parameters. */
export interface ToolSpec {
  readonly name: string
  readonly description: string
  readonly parameters: Readonly<Record<string, unknown>>
}

export type ReasoningEffort = "minimal" | "low" | "medium" | "high"

export interface LlmRequest {
  readonly provider: string
  readonly model: string
  readonly system?: string
  readonly messages: ReadonlyArray<Message>
  readonly tools?: ReadonlyArray<ToolSpec>
  readonly maxTokens?: number
  readonly temperature?: number
  readonly reasoning?: ReasoningEffort
  /** The session the request belongs to: names it in diagnostics. */
  readonly sessionId?: SessionId
  /**
   * How many times messages the session already sent were changed after the
   * fact (each `replay/degrade` of its log). An adapter that carries work from
   * one request of a session to the next may trust, while this stays the
   * same, that the earlier messages are the ones it saw; without it, it must
   * check them.
   */
  readonly historyRevision?: number
}

/** What the loop needs to know of a model to keep its requests inside the context window. */
export interface ModelInfo {
  /** Tokens a request and its answer may take together. */
  readonly contextWindow: number
  /** The model's own output limit. */
  readonly maxTokens: number
  /** The model reasons, and takes a reasoning effort. */
  readonly reasoning?: boolean
  /** Prices in US dollars per million tokens, when the model entry has them. */
  readonly cost?: ModelPrices
  /** What a prompt may hold for this model; absent when not known (then an image is sent as it is). */
  readonly input?: ReadonlyArray<"text" | "image">
}

/** Per million tokens; a tier's rates apply when a request's input is above its threshold. */
export interface Rates {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
}

export interface ModelPrices extends Rates {
  readonly tiers?: ReadonlyArray<Rates & { readonly inputTokensAbove: number }>
}

export interface Service {
  readonly stream: (request: LlmRequest) => Stream.Stream<StreamChunk>
  /**
   * The model a route names, when the adapter knows it. An adapter without
   * model facts (a scripted one) leaves it out: the loop then never compacts.
   */
  readonly modelInfo?: (provider: string, model: string) => ModelInfo | undefined
  /**
   * The answer budget this adapter will put on the wire for `request`: its
   * `maxTokens` (else the model's), less what the adapter or its provider
   * library takes away to keep the request inside the context window. The
   * loop compacts when it falls below what an answer should get, so the loop
   * and the wire decide with the same arithmetic. Undefined when the adapter
   * cannot tell (no route); an adapter without it leaves the loop to its own
   * estimate.
   */
  readonly answerRoom?: (request: LlmRequest) => Effect.Effect<number | undefined>
  /**
   * Why no request on a route can be sent, found before any is: a route the
   * adapter does not know, a credential that is not set. Undefined when
   * requests can be sent. The loop asks before it stores a new session, so a
   * session that could never get an answer is not created.
   */
  readonly unavailable?: (provider: string, model: string) => Effect.Effect<Failure | undefined>
}

export class LlmAdapter extends Context.Tag("@turnlog/llm/LlmAdapter")<LlmAdapter, Service>() {}
