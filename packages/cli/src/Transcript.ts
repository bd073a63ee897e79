/**
 * A session as a person reads it: turn by turn, who said what, which tools
 * ran with what result, and where each turn stopped and why. Built from the
 * durable log alone. Raw chunks are evidence, not conversation — except where
 * they are all there is of what the user saw: the text a failed attempt had
 * shown, and the tool calls an output-limit cut dropped. Its printed lines
 * are in `TranscriptText.ts`.
 */
import { Assembler } from "@turnlog/assembler"
import { ChunkBatch, type ContentBlock, type Failure, SessionLog } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"

export type Item =
  /** `images`: the prompt's images (base64 and media type), in order; absent when it had none. */
  | { readonly role: "user"; readonly text: string; readonly images?: ReadonlyArray<PromptImage> }
  | {
    readonly role: "assistant"
    readonly text: string
    readonly reasoning?: string
    readonly interrupted?: true
    /** What an attempt that then failed had shown: it was never stored as a message. */
    readonly failed?: true
  }
  | { readonly role: "tool-call"; readonly callId: string; readonly name: string; readonly arguments: string }
  | { readonly role: "tool-result"; readonly callId: string; readonly content: string; readonly isError: boolean }
  /** The system prompt requests were sent with from here on (said where it changes: its sha256 and sources). */
  | { readonly role: "system-prompt"; readonly hash: string; readonly sources: ReadonlyArray<string> }
  /** A `context/compaction`: the history before `firstKeptSeq` summarised; `between`: written between turns (`turnlog compact`). */
  | {
    readonly role: "compaction"
    readonly summary: string
    readonly firstKeptSeq: number
    readonly tokensBefore: number
    readonly tokensAfter: number
    readonly route: string
    readonly between?: true
  }
  /** A `session/fork`: the turns before it are session `session`'s, copied up to its turn `turn`. */
  | { readonly role: "fork"; readonly session: string; readonly turn: number }

export interface Turn {
  readonly items: ReadonlyArray<Item>
  /** Before the latest compaction's kept history: the model sees this turn only through a summary. */
  readonly compacted?: true
  /** Absent while the turn is open (the process stopped mid-turn and the session was not reopened). */
  readonly end?: {
    readonly reason: SessionLog.TurnEndReason
    readonly failure?: Failure
    /** The tool calls a `max-tokens` cut dropped (named as the model named them; never run). */
    readonly dropped?: ReadonlyArray<string>
  }
}

export interface Transcript {
  readonly id: string
  readonly cwd: string
  readonly createdAt: string
  readonly turns: ReadonlyArray<Turn>
  /** Compactions written after the last turn (`turnlog compact`). */
  readonly trailing?: ReadonlyArray<Item>
  readonly tornTail?: { readonly bytes: number; readonly line: number }
  /** The live process writing the session, when its last turn is in flight there. */
  readonly writer?: number
}

/** An image of a prompt as the log keeps it. */
export interface PromptImage {
  readonly mimeType: string
  readonly data: string
}

const userItem = (content: ReadonlyArray<ContentBlock>): Item => {
  const images = content.flatMap((b) => (b.type === "image" ? [{ mimeType: b.mimeType, data: b.data }] : []))
  return { role: "user", text: textOf(content, "text"), ...(images.length === 0 ? {} : { images }) }
}

const textOf = (blocks: ReadonlyArray<{ readonly type: string; readonly text?: string }>, type: string): string =>
  blocks.flatMap((b) => (b.type === type && b.text !== undefined ? [b.text] : [])).join("")

/**
 * The transcript of `session`. `systemBefore`: the hash of the system prompt
 * in force before its events (when they are a later part of a log), so a
 * prompt is shown only where it changes.
 */
export const fromSession = (session: SessionStore.LoadedSession, systemBefore?: string): Transcript => {
  let system = systemBefore
  const turns: Array<Turn> = []
  let items: Array<Item> = []
  let open = false
  // The attempt in progress, folded from its chunks until it becomes a message.
  let attempt: Assembler.State | undefined
  // The attempt's batches so far, for a block-end that refers back to them.
  let batches = new ChunkBatch.Tracker()
  let dropped: Array<string> = []
  // A summary request's answer is the compaction's summary, shown with it, not as the assistant speaking.
  let summaryRequest = false
  // Compactions written between turns, shown at the start of the next one.
  let between: Array<Item> = []
  let keptFrom = 0
  for (const event of session.events) {
    if (event.type === "context/compaction") keptFrom = event.data.firstKeptSeq
  }
  const starts: Array<number> = []
  for (const event of session.events) {
    switch (event.type) {
      case "turn/start":
        if (open) turns.push({ items })
        starts.push(event.seq)
        items = between
        between = []
        dropped = []
        attempt = undefined
        open = true
        break
      case "user/message":
        // A turn is compacted when its prompt is before the kept history (the seq a compaction keeps from is a message's).
        if (open && starts.length === turns.length + 1 && items.every((i) => i.role !== "user")) starts[turns.length] = event.seq
        items.push(userItem(event.data.message.content))
        break
      case "request/start":
        attempt = Assembler.initial
        batches = new ChunkBatch.Tracker()
        summaryRequest = event.data.purpose === "compaction"
        if (event.data.system !== undefined && event.data.system.hash !== system) {
          system = event.data.system.hash
          items.push({ role: "system-prompt", hash: system, sources: event.data.system.sources })
        }
        break
      case "context/compaction": {
        const item: Item = {
          role: "compaction",
          summary: event.data.summary,
          firstKeptSeq: event.data.firstKeptSeq,
          tokensBefore: event.data.tokensBefore,
          tokensAfter: event.data.tokensAfter,
          route: `${event.data.provider}/${event.data.model}`,
          ...(open ? {} : { between: true as const }),
        }
        if (open) items.push(item)
        else between.push(item)
        break
      }
      case "session/fork":
        // Written once, between turns: shown at the start of the next turn, or after the last.
        between.push({ role: "fork", session: event.data.forkedFrom.session, turn: event.data.forkedFrom.turn })
        break
      case "replay/degrade":
      case "permission/rule":
      case "session/mode":
      case "session/reasoning":
        break
      case "assistant/chunk":
      case "assistant/chunks":
        if (attempt !== undefined) {
          for (const chunk of SessionLog.chunksOf(event, batches)) attempt = Assembler.step(attempt, chunk)
        }
        break
      case "assistant/message": {
        if (summaryRequest) {
          summaryRequest = false
          attempt = undefined
          break
        }
        const content = event.data.message.content
        const text = textOf(content, "text")
        const reasoning = textOf(content, "reasoning")
        if (text !== "" || reasoning !== "" || event.data.interrupted === true) {
          items.push({
            role: "assistant",
            text,
            ...(reasoning === "" ? {} : { reasoning }),
            ...(event.data.interrupted === true ? { interrupted: true as const } : {}),
          })
        }
        for (const block of content) {
          if (block.type === "tool-call") {
            items.push({ role: "tool-call", callId: block.id, name: block.name, arguments: block.arguments })
          }
        }
        // A cut at the output limit drops every tool call its attempt streamed.
        if (event.data.finish.kind === "max-tokens" && attempt !== undefined) dropped = toolCallsOf(attempt)
        attempt = undefined
        break
      }
      case "tool/result":
        for (const block of event.data.message.content) {
          if (block.type === "tool-result") {
            items.push({
              role: "tool-result",
              callId: block.toolCallId,
              content: block.content,
              isError: block.isError === true,
            })
          }
        }
        break
      case "turn/end": {
        // A failed turn's last attempt made no message; what it showed is in its chunks.
        if (event.data.reason === "error" && attempt !== undefined) {
          const shown = Assembler.interrupted(attempt)
          const text = textOf(shown, "text")
          const reasoning = textOf(shown, "reasoning")
          if (text !== "" || reasoning !== "") {
            items.push({ role: "assistant", text, ...(reasoning === "" ? {} : { reasoning }), failed: true })
          }
        }
        const { failure, reason } = event.data
        turns.push({
          items,
          end: {
            reason,
            ...(failure === undefined ? {} : { failure }),
            ...(reason === "max-tokens" && dropped.length > 0 ? { dropped } : {}),
          },
        })
        items = []
        dropped = []
        attempt = undefined
        open = false
        break
      }
      case "tool/call":
        break
    }
  }
  if (open) turns.push({ items })
  const marked = turns.map((turn, i) => (starts[i] !== undefined && starts[i]! < keptFrom ? { ...turn, compacted: true as const } : turn))
  const torn = session.recovery.tornTail
  const writer = session.recovery.openTurn?.holder?.pid
  return {
    id: session.header.id,
    cwd: session.header.cwd,
    createdAt: session.header.createdAt,
    turns: marked,
    ...(between.length === 0 ? {} : { trailing: between }),
    ...(torn === undefined ? {} : { tornTail: { bytes: torn.bytes, line: torn.line } }),
    ...(writer === undefined ? {} : { writer }),
  }
}

/** The hash of the last system prompt `events` record, else `before`. */
export const lastSystem = (events: Iterable<SessionLog.SessionEvent>, before?: string): string | undefined => {
  let hash = before
  for (const event of events) if (event.type === "request/start" && event.data.system !== undefined) hash = event.data.system.hash
  return hash
}

/** The tool calls an attempt streamed, by name, in order. */
const toolCallsOf = (attempt: Assembler.State): Array<string> => {
  // Assembled as if it had stopped normally: every streamed tool call is kept, so each can be named.
  const all = Assembler.finish(Assembler.step(attempt, { type: "finish", reason: { kind: "stop" } }))
  return all.blocks.flatMap((block) => (block.type === "tool-call" ? [block.name === "" ? "(unnamed)" : block.name] : []))
}
