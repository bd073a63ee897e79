/**
 * The durable session log: one header, then events with contiguous `seq` from
 * 1. Every store layer (JSONL, SQLite, memory) and the history reader share
 * this one definition. An unknown `type` is not an event of this version: it is
 * refused at the boundary, never skipped.
 *
 * Versions. 1: each raw chunk is its own `assistant/chunk` event. 2: a
 * request's raw chunks are written as batches (`assistant/chunks`, see
 * `ChunkBatch`), a batch closed before any other event and before every
 * flush. 3: a block that streamed over several batches of one request ends
 * in a `block-end-streamed` back-reference instead of its whole text again
 * (see `ChunkBatch`): a batch is decoded with the tracker of its request's
 * earlier batches. This build reads all three, and keeps writing a session
 * in the version its header names (an older session stays readable by the
 * build that made it); new sessions are version 3. A header of a later
 * version is refused as written by a newer build. Readers take a raw chunk
 * event's chunks through `chunksOf`, whichever form it has, carrying a
 * request's `ChunkBatch.Tracker` from its `request/start` on (`RequestChunks`).
 */
import { Either, Schema } from "effect"
import * as ChunkBatch from "./ChunkBatch.js"
import { Failure, FinishReason } from "./Finish.js"
import { MessageId, SessionId } from "./Ids.js"
import { Message } from "./Message.js"
import { StreamChunk } from "./StreamChunk.js"
import { Usage } from "./Usage.js"

/** The log format version this build reads and writes. */
export const LOG_VERSION = 4

/**
 * The first version whose `assistant/message` lines may store a text, the
 * envelope or the usage by reference to what the message's request streamed
 * (the log's encoding only: a decoded event always holds them whole).
 */
export const STREAMED_MESSAGE_VERSION = 4

/** The first version whose batches may end a block streamed over several of them by reference. */
export const STREAMED_END_VERSION = 3

/** The version whose sessions log each raw chunk as its own `assistant/chunk` event. */
export const UNBATCHED_VERSION = 1

export const SessionHeader = Schema.Struct({
  type: Schema.Literal("session"),
  version: Schema.Number,
  id: SessionId,
  createdAt: Schema.String,
  cwd: Schema.String,
  title: Schema.optionalWith(Schema.String, { exact: true }),
})
export type SessionHeader = typeof SessionHeader.Type

export const TurnEndReason = Schema.Literal(
  "completed",
  "max-tokens",
  "error",
  "cancelled",
  "interrupted",
  "max-steps",
)
export type TurnEndReason = typeof TurnEndReason.Type

const Seq = Schema.Number.pipe(Schema.int(), Schema.positive())
const Tokens = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

/**
 * What a request is for, when it is not the conversation's next step. A
 * `compaction` request asks the session's model for a summary: its chunks and
 * message are logged like any other request's, and are not conversation.
 */
export const RequestPurpose = Schema.Literal("compaction")
export type RequestPurpose = typeof RequestPurpose.Type

/**
 * The system prompt a request was sent with, as the log keeps it: not its
 * text (that is not conversation, and may hold what the user keeps private)
 * but its sha256 in hex and where it came from, in order ("default",
 * "config:appendSystem", an instruction file's absolute path).
 */
export const SystemRecord = Schema.Struct({
  hash: Schema.String,
  sources: Schema.Array(Schema.String),
})
export type SystemRecord = typeof SystemRecord.Type

/**
 * How much a session's tools may do without asking: `ask` asks before every
 * write and command; `read-only` refuses both (the model is told it plans);
 * `auto-edit` writes without asking and asks before commands; `full-access`
 * never asks.
 */
export const Mode = Schema.Literal("ask", "read-only", "auto-edit", "full-access")
export type Mode = typeof Mode.Type
export const MODES: ReadonlyArray<Mode> = Mode.literals
/** A session's mode until a `session/mode` event says otherwise. */
export const DEFAULT_MODE: Mode = "ask"

/** The session's mode as its log leaves it: the latest `session/mode`, else the default. */
export const modeOf = (events: Iterable<SessionEvent>): Mode => {
  let mode: Mode = DEFAULT_MODE
  for (const event of events) if (event.type === "session/mode") mode = event.data.mode
  return mode
}

/**
 * Where a forked session came from (its latest `session/fork` event: a fork of
 * a fork carries its parent's too), or `undefined` for a session that is no fork.
 */
export const forkedFromOf = (
  events: Iterable<SessionEvent>,
): { readonly session: SessionId; readonly turn: number } | undefined => {
  let from: { readonly session: SessionId; readonly turn: number } | undefined
  for (const event of events) if (event.type === "session/fork") from = event.data.forkedFrom
  return from
}

/**
 * How hard a model that reasons is asked to think: `off` asks nothing (the
 * provider's default, no reasoning requested), the others are sent as the
 * request's reasoning effort.
 */
export const ReasoningEffort = Schema.Literal("off", "low", "medium", "high")
export type ReasoningEffort = typeof ReasoningEffort.Type
export const REASONING_EFFORTS: ReadonlyArray<ReasoningEffort> = ReasoningEffort.literals

/** The session's reasoning effort as its log leaves it: the latest `session/reasoning`, else `off`. */
export const reasoningOf = (events: Iterable<SessionEvent>): ReasoningEffort => {
  let effort: ReasoningEffort = "off"
  for (const event of events) if (event.type === "session/reasoning") effort = event.data.effort
  return effort
}

/** The payload of each event type, keyed by type. */
export const EventData = {
  "turn/start": Schema.Struct({}),
  "user/message": Schema.Struct({ message: Message }),
  "request/start": Schema.Struct({
    provider: Schema.String,
    model: Schema.String,
    step: Schema.optionalWith(Schema.Number, { exact: true }),
    attempt: Schema.optionalWith(Schema.Number, { exact: true }),
    purpose: Schema.optionalWith(RequestPurpose, { exact: true }),
    /** Which system prompt the request was sent with (absent: none, or a log from before it was recorded). */
    system: Schema.optionalWith(SystemRecord, { exact: true }),
  }),
  "assistant/chunk": Schema.Struct({ chunk: StreamChunk }),
  /** Consecutive raw chunks of one request, encoded (version 2). */
  "assistant/chunks": Schema.Struct({ entries: ChunkBatch.Entries }),
  "assistant/message": Schema.Struct({
    message: Message,
    finish: FinishReason,
    usage: Schema.optionalWith(Usage, { exact: true }),
    interrupted: Schema.optionalWith(Schema.Boolean, { exact: true }),
  }),
  "tool/call": Schema.Struct({
    callId: Schema.String,
    name: Schema.String,
    arguments: Schema.String,
  }),
  "tool/result": Schema.Struct({
    message: Message,
    code: Schema.optionalWith(Schema.String, { exact: true }),
  }),
  "turn/end": Schema.Struct({
    reason: TurnEndReason,
    failure: Schema.optionalWith(Failure, { exact: true }),
  }),
  /** The user's standing answer for one tool in this session ("allow always", "reject always"). */
  "permission/rule": Schema.Struct({
    tool: Schema.String,
    decision: Schema.Literal("allow", "deny"),
  }),
  /** The session's mode from here on (see `Mode`); written between turns. */
  "session/mode": Schema.Struct({ mode: Mode }),
  /** The reasoning effort the session's requests ask for from here on (see `ReasoningEffort`); written between turns. */
  "session/reasoning": Schema.Struct({ effort: ReasoningEffort }),
  /**
   * This session is a fork: the events before this one are a copy of session
   * `forkedFrom.session`'s log up to the start of the turn after its turn
   * `forkedFrom.turn` (1-based), seq and data unchanged. Written once, right
   * after the copy, when the fork is created.
   */
  "session/fork": Schema.Struct({
    forkedFrom: Schema.Struct({ session: SessionId, turn: Seq }),
  }),
  /**
   * The history before `firstKeptSeq` summarised, written and flushed before
   * the request it makes room for. Nothing is deleted: the request history
   * starts from the latest compaction (its summary, then the events from
   * `firstKeptSeq` on). Token counts are estimates of the whole request.
   */
  "context/compaction": Schema.Struct({
    summary: Schema.String,
    firstKeptSeq: Seq,
    tokensBefore: Tokens,
    tokensAfter: Tokens,
    provider: Schema.String,
    model: Schema.String,
  }),
  /**
   * Messages whose replay state a provider refused, named by message id (the
   * id the reconstructor memoizes on and diagnostics name; a provider's error
   * points at a request message, which carries it): from this event on they
   * are sent provider-neutral. `reason` is the provider's words; `provider`
   * and `model` the route the request was refused on.
   */
  "replay/degrade": Schema.Struct({
    messageIds: Schema.Array(MessageId),
    reason: Schema.String,
    provider: Schema.String,
    model: Schema.String,
  }),
} as const

export type EventType = keyof typeof EventData
export const EVENT_TYPES = Object.keys(EventData) as ReadonlyArray<EventType>

const eventOf = <T extends EventType>(type: T) => Schema.Struct({ seq: Seq, time: Schema.String, type: Schema.Literal(type), data: EventData[type] })

export const TurnStart = eventOf("turn/start")
export const UserMessage = eventOf("user/message")
export const RequestStart = eventOf("request/start")
export const AssistantChunk = eventOf("assistant/chunk")
export const AssistantChunks = eventOf("assistant/chunks")
export const AssistantMessage = eventOf("assistant/message")
export const ToolCall = eventOf("tool/call")
export const ToolResult = eventOf("tool/result")
export const TurnEnd = eventOf("turn/end")
export const PermissionRule = eventOf("permission/rule")
export const SessionMode = eventOf("session/mode")
export const SessionFork = eventOf("session/fork")
export const SessionReasoning = eventOf("session/reasoning")
export const ContextCompaction = eventOf("context/compaction")
export const ReplayDegrade = eventOf("replay/degrade")

export const SessionEvent = Schema.Union(
  TurnStart,
  UserMessage,
  RequestStart,
  AssistantChunk,
  AssistantChunks,
  AssistantMessage,
  ToolCall,
  ToolResult,
  TurnEnd,
  PermissionRule,
  SessionMode,
  SessionFork,
  SessionReasoning,
  ContextCompaction,
  ReplayDegrade,
)
export type SessionEvent = typeof SessionEvent.Type

/** The event of one type. */
export type EventOf<T extends EventType> = Extract<SessionEvent, { readonly type: T }>
/** An event before it is given its place in the log. */
export type EventInput = { [T in EventType]: Omit<EventOf<T>, "seq" | "time"> }[EventType]

export const isEventType = (type: unknown): type is EventType => typeof type === "string" && Object.prototype.hasOwnProperty.call(EventData, type)

/**
 * The event types that carry raw stream chunks: one chunk per event
 * (`assistant/chunk`, the version-1 form) or a batch of one request's
 * consecutive chunks (`assistant/chunks`, version 2). Readers that skip or
 * single out raw chunks test the type through this one predicate.
 */
export const RAW_CHUNK_TYPES: ReadonlyArray<string> = ["assistant/chunk", "assistant/chunks"]
export const isRawChunk = (type: unknown): type is "assistant/chunk" | "assistant/chunks" => type === "assistant/chunk" || type === "assistant/chunks"

/** A raw chunk event, of either form. */
export type RawChunkEvent = EventOf<"assistant/chunk"> | EventOf<"assistant/chunks">

/**
 * The raw chunks an event carries, in order, whatever its form: none for an
 * event that is not a raw chunk event. `carried`: the tracker of the
 * request's earlier batches (see `RequestChunks`), needed by a batch that
 * ends a block by `block-end-streamed`; it is advanced by the batch. A
 * batch's own back-references are checked when it is decoded, so a batch
 * read from a log decodes; one that names what no earlier batch holds fails
 * with why.
 */
export const chunksOf = (event: SessionEvent, carried?: ChunkBatch.Tracker): ReadonlyArray<StreamChunk> => {
  switch (event.type) {
    case "assistant/chunk":
      return [event.data.chunk]
    case "assistant/chunks":
      return Either.getOrThrowWith(
        ChunkBatch.decode(event.data.entries, carried),
        (reason) => new Error(`event ${event.seq}: ${reason}`),
      )
    default:
      return []
  }
}

/**
 * Raw chunks of a log read in order: each request's batches are decoded with
 * the tracker carried from its `request/start`, so a `block-end-streamed`
 * resolves. `next` fails with the seq and the entry of a reference that does
 * not resolve (a batch missing or damaged): never a silent empty text.
 */
export class RequestChunks {
  private tracker = new ChunkBatch.Tracker()

  next(event: SessionEvent): Either.Either<ReadonlyArray<StreamChunk>, string> {
    switch (event.type) {
      case "request/start":
        this.tracker = new ChunkBatch.Tracker()
        return Either.right([])
      case "assistant/chunk":
        this.tracker.observe(event.data.chunk)
        return Either.right([event.data.chunk])
      case "assistant/chunks":
        return Either.mapLeft(ChunkBatch.decode(event.data.entries, this.tracker), (reason) => `event ${event.seq}: ${reason}`)
      default:
        return Either.right([])
    }
  }
}

/** Every raw chunk among `events` (a log's events in order), each request's batches decoded together. */
export const chunksIn = (events: Iterable<SessionEvent>): Array<StreamChunk> => {
  const reader = new RequestChunks()
  const out: Array<StreamChunk> = []
  for (const event of events) {
    for (const chunk of Either.getOrThrowWith(reader.next(event), (reason) => new Error(reason))) out.push(chunk)
  }
  return out
}

/**
 * The event that logs a batch of raw chunks (version 2 without `carried`;
 * version 3 with the tracker of the request's earlier batches, which it advances).
 */
export const batchOf = (
  chunks: ReadonlyArray<StreamChunk>,
  carried?: ChunkBatch.Tracker,
): Omit<EventOf<"assistant/chunks">, "seq" | "time"> => ({
  type: "assistant/chunks",
  data: { entries: ChunkBatch.encode(chunks, carried) },
})

/** Gives events their place: contiguous seq from `nextSeq`, one timestamp. */
export const stamp = (
  nextSeq: number,
  inputs: ReadonlyArray<EventInput>,
  time: string = new Date().toISOString(),
): Array<SessionEvent> => inputs.map((input, i) => ({ seq: nextSeq + i, time, ...input }) as SessionEvent)

export const decodeHeader = Schema.decodeUnknownEither(SessionHeader)
export const decodeEvent = Schema.decodeUnknownEither(SessionEvent)
export const encodeEvent = Schema.encodeSync(SessionEvent)
