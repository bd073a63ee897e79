/**
 * Log format version 4: an `assistant/message` line stores what its request
 * already streamed by reference instead of a second copy.
 *
 * The raw chunks of a request (its `assistant/chunks` batches, or version-1
 * `assistant/chunk` lines) hold every delta's text; the assembled message
 * after them held the same text again. In version 4 the line of the message
 * may say, in place of a value:
 *
 * - a text or reasoning block `{"type":"text","streamed":i}` (the key
 *   `streamed` where `text` was): its text is what the request's text (or
 *   reasoning) deltas of index `i` joined;
 * - a tool-call block `{"type":"tool-call","id":…,"name":…,"streamed":i}`
 *   (in place of `arguments`): the request's tool-call deltas of index `i`
 *   joined;
 * - `"replayState":"streamed"` in the message's source: the envelope of the
 *   request's finish chunk;
 * - `"usage":"streamed"`: the request's last usage chunk.
 *
 * And a `tool/call` line after the message, `{"callId":…,"name":…,"streamed":i}`
 * in place of `arguments`: the request's tool-call deltas of index `i` joined.
 *
 * Its batches are written packed (`{"packed":[…]}`, see `BatchLines`) and
 * put back as `entries` when read.
 *
 * "The request" is every raw chunk since the log's latest `request/start`.
 * A writer uses a reference only when it saw that `request/start` and what
 * the reference gives back is exactly the value (for a text, the same
 * string; for the envelope and usage, the same JSON), so a reader rebuilds the
 * event as it was written, key order included. A reference with nothing to
 * give (no such index, deltas of another kind, no finish envelope) is damage,
 * named by the reader with the line; in a log before version 4 nothing is a
 * reference, and such a line is refused as any line missing its text.
 *
 * The decoded event is the same in every store: the database stores keep
 * each message whole (their open never reads a completed step's chunks), and
 * `export` writes the references again for a version-4 session.
 *
 * A `Streamed` follows one log, one event at a time: `encode` for a writer,
 * `decode` for a reader. Both advance it by the same rule (`observe`), on the
 * raw JSON of a line as well as on a decoded event, so writer and reader agree
 * on every reference. A writer advances a `copy` and keeps it only once its
 * write is durable.
 */
import { SessionLog } from "@turnlog/protocol"
import { isObject, type Json, pack, renamed, unpackLine } from "./BatchLines.js"

type Kind = "text" | "reasoning" | "tool-call"

/** One index's deltas joined, or `null` once deltas of two kinds shared the index. */
type Part = { readonly kind: Kind; readonly text: string } | null

/** The reference token for the envelope and the usage. */
const STREAMED = "streamed"

/** Texts shorter than this are written as they are: the reference would not be shorter. */
const SHORTEST = 12

const isIndex = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0

/** The key of a block that a reference replaces. */
const textKey = (type: unknown): "text" | "arguments" | undefined =>
  type === "text" || type === "reasoning" ? "text" : type === "tool-call" ? "arguments" : undefined

const kindOf = (type: unknown): Kind | undefined => type === "text" || type === "reasoning" || type === "tool-call" ? type : undefined

export class Streamed {
  /** Whether the request's `request/start` was seen (a writer refers only then). */
  private anchored = false
  private parts = new Map<number, Part>()
  private usage: unknown = undefined
  private envelope: unknown = undefined
  /** Whether one of the request's deltas was not a delta: no reference to it resolves. */
  private damaged = false

  /** `version`: the log's format version; references belong to version 4 on. */
  constructor(readonly version: number) {}

  /** Whether this log's messages may refer to what their request streamed. */
  get refers(): boolean {
    return this.version >= SessionLog.STREAMED_MESSAGE_VERSION
  }

  copy(): Streamed {
    const next = new Streamed(this.version)
    next.anchored = this.anchored
    next.parts = new Map(this.parts)
    next.usage = this.usage
    next.envelope = this.envelope
    next.damaged = this.damaged
    return next
  }

  private reset(anchored: boolean): void {
    this.anchored = anchored
    if (this.parts.size > 0) this.parts = new Map()
    this.usage = undefined
    this.envelope = undefined
    this.damaged = false
  }

  private add(index: unknown, kind: Kind, text: unknown): void {
    // A delta that is not one (a damaged line `open` did not decode): nothing this request streamed is known for sure.
    if (!isIndex(index) || typeof text !== "string") {
      this.damaged = true
      return
    }
    const part = this.parts.get(index)
    if (part === undefined) this.parts.set(index, { kind, text })
    else if (part !== null) this.parts.set(index, part.kind === kind ? { kind, text: part.text + text } : null)
  }

  /** One raw chunk, or one batch entry (which is a raw chunk or a run of deltas). */
  private entry(entry: unknown): void {
    if (!isObject(entry)) return
    switch (entry.type) {
      case "text-delta":
      case "text-deltas":
        return this.add(entry.index, "text", entry.text)
      case "reasoning-delta":
      case "reasoning-deltas":
        return this.add(entry.index, "reasoning", entry.text)
      case "tool-call-delta":
        return this.add(entry.index, "tool-call", entry.argumentsDelta)
      case "tool-call-deltas":
        return this.add(entry.index, "tool-call", entry.arguments)
      case "usage":
        this.usage = entry.usage
        return
      case "finish":
        this.envelope = entry.replayState
        return
    }
  }

  /** Advances past one event: a decoded event or a line's parsed JSON (not yet validated). */
  observe(value: unknown): void {
    if (!isObject(value)) return
    switch (value.type) {
      case "request/start":
        return this.reset(true)
      case "assistant/chunk":
        if (isObject(value.data)) this.entry(value.data.chunk)
        return
      case "assistant/chunks": {
        // A batch as an event holds `entries`; as a version-4 line, `packed` (see `BatchLines`): the same texts.
        const entries = isObject(value.data) ? value.data.entries ?? value.data.packed : undefined
        if (Array.isArray(entries)) { for (const entry of entries) this.entry(entry) }
        return
      }
    }
  }

  /** The index whose deltas joined to exactly `text`, of `kind` (the block's own position first). */
  private indexOf(kind: Kind, text: string, position: number): number | undefined {
    const own = this.parts.get(position)
    if (own != null && own.kind === kind && own.text === text) return position
    for (const [index, part] of this.parts) {
      if (part !== null && part.kind === kind && part.text === text) return index
    }
    return undefined
  }

  /**
   * What a writer writes for `event` (the event itself, or an `assistant/message`
   * with references), advancing past it.
   */
  encode(event: SessionLog.SessionEvent): unknown {
    if (event.type === "assistant/chunks" && this.refers) {
      this.observe(event)
      const packed = pack(event.data.entries)
      return packed === undefined ? event : { ...event, data: renamed(event.data as unknown as Json, "entries", "packed", packed) }
    }
    if (event.type === "tool/call" && this.refers && this.anchored && event.data.arguments.length >= SHORTEST) {
      const index = this.indexOf("tool-call", event.data.arguments, -1)
      return index === undefined ? event : { ...event, data: renamed(event.data as unknown as Json, "arguments", STREAMED, index) }
    }
    if (event.type !== "assistant/message" || !this.refers || !this.anchored) {
      this.observe(event)
      return event
    }
    const data = event.data as unknown as Json
    const message = data.message as Json
    let changed = false
    const content = (message.content as ReadonlyArray<Json>).map((block, position) => {
      const key = textKey(block.type)
      const kind = kindOf(block.type)
      const text = key === undefined ? undefined : block[key]
      if (kind === undefined || typeof text !== "string" || text.length < SHORTEST) return block
      const index = this.indexOf(kind, text, position)
      if (index === undefined) return block
      changed = true
      return renamed(block, key!, STREAMED, index)
    })
    let source = message.source as Json
    if (
      isObject(source) && source.replayState !== undefined && this.envelope !== undefined &&
      JSON.stringify(source.replayState) === JSON.stringify(this.envelope)
    ) {
      source = renamed(source, "replayState", "replayState", STREAMED)
      changed = true
    }
    let usage = data.usage
    if (usage !== undefined && this.usage !== undefined && JSON.stringify(usage) === JSON.stringify(this.usage)) {
      usage = STREAMED
      changed = true
    }
    this.observe(event)
    if (!changed) return event
    const encodedMessage = renamed(renamed(message, "content", "content", content), "source", "source", source)
    const encodedData = renamed(renamed(data, "message", "message", encodedMessage), "usage", "usage", usage)
    return { ...event, data: encodedData }
  }

  /**
   * Advances past a line's parsed JSON, replacing (in place) the references
   * of an `assistant/message` by what they stand for. Returns why a reference
   * cannot be resolved, or `undefined`.
   */
  decode(value: unknown): string | undefined {
    if (!isObject(value)) return undefined
    if (value.type === "assistant/message") return this.resolve(value)
    if (value.type === "tool/call") return this.resolveCall(value)
    this.observe(value)
    return value.type === "assistant/chunks" ? this.unpack(value) : undefined
  }

  /** A batch line's `packed` entries put back (version 4 on; see `unpack`). */
  unpack(value: unknown): string | undefined {
    return this.refers ? unpackLine(value) : undefined
  }

  /** Why a reference finds nothing. */
  private none(): string {
    return this.damaged ? "a chunk of that request is damaged (a delta without its index or text)" : "the request streamed none"
  }

  private resolveCall(value: Json): string | undefined {
    const data = value.data
    if (!this.refers || !isObject(data) || !(STREAMED in data)) return undefined
    if ("arguments" in data) return `has both "arguments" and "${STREAMED}"`
    const index = data[STREAMED]
    const part = isIndex(index) && !this.damaged ? this.parts.get(index) : undefined
    if (part == null || part.kind !== "tool-call") {
      return `refers to the tool-call arguments its request streamed at index ${String(index)}, and ${this.none()}`
    }
    value.data = renamed(data, STREAMED, "arguments", part.text)
    return undefined
  }

  private resolve(value: Json): string | undefined {
    const data = value.data
    // Before version 4 nothing is a reference: the schema judges the line as it is.
    if (!this.refers || !isObject(data)) return undefined
    const message = data.message
    if (isObject(message)) {
      const content = message.content
      if (Array.isArray(content)) {
        for (let position = 0; position < content.length; position++) {
          const block: unknown = content[position]
          if (!isObject(block) || !(STREAMED in block)) continue
          const key = textKey(block.type)
          const kind = kindOf(block.type)
          if (key === undefined || kind === undefined) continue
          if (key in block) return `message.content.${position}: has both "${key}" and "${STREAMED}"`
          const index = block[STREAMED]
          const part = isIndex(index) && !this.damaged ? this.parts.get(index) : undefined
          if (part == null || part.kind !== kind) {
            return `message.content.${position}: refers to the ${kind} its request streamed at index ${String(index)}, and ${this.none()}`
          }
          content[position] = renamed(block, STREAMED, key, part.text)
        }
      }
      const source = message.source
      if (isObject(source) && source.replayState === STREAMED) {
        if (this.envelope === undefined) return "message.source.replayState: refers to the envelope of its request's finish chunk, and there is none"
        source.replayState = this.envelope
      }
    }
    if (data.usage === STREAMED) {
      if (this.usage === undefined) return "usage: refers to the usage its request streamed, and it streamed none"
      data.usage = this.usage
    }
    return undefined
  }
}

/** Event lines, each with its newline, through `streamed` (advanced past them) when given. */
export const serializeEvents = (events: ReadonlyArray<SessionLog.SessionEvent>, streamed?: Streamed): string => {
  let text = ""
  for (const event of events) text += JSON.stringify(streamed === undefined ? event : streamed.encode(event)) + "\n"
  return text
}
