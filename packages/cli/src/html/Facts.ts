/**
 * What the HTML page shows beside a transcript's items, read from the same
 * events: when each turn started and ended, the models it asked, the tokens
 * they reported, retried attempts, and what only turnlog knows — a message
 * whose replay state this build would degrade (`INVALID_REPLAY_STATE`, by the
 * checks `doctor` runs), a provider's refusal (`replay/degrade`), the pruned
 * envelope of a response cut at the output limit, standing permission
 * answers, and the adapter kind (pi-ai, ai-sdk) that wrote each turn's answers.
 * A message is judged by the codec of the adapter that wrote it; when the
 * session moves to the other adapter, each message of the first kind still
 * in the history is marked where the move happened, as the request sent it
 * (provider-neutral, `INVALID_REPLAY_STATE`). `SessionFacts` is one pass over
 * the whole log (the header's figures); `TurnFacts` is gathered turn by turn
 * beside the transcript, so neither holds more than a turn — beside a few
 * words per message of the history (its id, route and kind) for the move.
 */
import type { Message, SessionLog } from "@turnlog/protocol"
import { type Kind, KINDS } from "../AdapterChoice.js"
import * as ReplayCheck from "../ReplayCheck.js"

/** The figures of a whole session, from one pass over its events. */
export class SessionFacts {
  /** The seq the latest compaction keeps history from (0: none). */
  keptFrom = 0
  turns = 0
  events = 0
  inputTokens = 0
  outputTokens = 0
  /** The time of the last event, if any. */
  updatedAt: string | undefined
  /** The first line of the first prompt: what names the session when its header has no title. */
  firstPrompt: string | undefined
  readonly routes = new Set<string>()

  add(event: SessionLog.SessionEvent): void {
    this.events++
    this.updatedAt = event.time
    switch (event.type) {
      case "turn/start":
        this.turns++
        break
      case "request/start":
        this.routes.add(`${event.data.provider}/${event.data.model}`)
        break
      case "user/message":
        if (this.firstPrompt === undefined) {
          const text = event.data.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
          this.firstPrompt = text.trim().split("\n")[0]!.slice(0, 120)
        }
        break
      case "assistant/message":
        this.inputTokens += event.data.usage?.inputTokens ?? 0
        this.outputTokens += event.data.usage?.outputTokens ?? 0
        break
      case "context/compaction":
        this.keptFrom = event.data.firstKeptSeq
        break
      default:
        break
    }
  }
}

export interface Degraded {
  readonly messageId: string
  readonly route: string
  readonly reason: string
  /** Degraded by a move between adapters: the kind that wrote the message, and the kind that sent it neutral. */
  readonly moved?: { readonly writtenBy: Kind; readonly sentBy: Kind }
}

export interface Refusal {
  readonly seq: number
  readonly messageIds: ReadonlyArray<string>
  readonly route: string
  readonly reason: string
}

export interface Cut {
  readonly messageId: string
  /** The stored message's envelope, pruned to its kept blocks (absent: none stored). */
  readonly pruned: unknown
  /** Block entries the raw finish chunk's envelope had (before the drop), when it had a list. */
  readonly streamedEntries?: number
}

export interface Retry {
  readonly step: number
  readonly attempt: number
  readonly route: string
}

/** What one turn's events say beside its items. */
export interface Facts {
  readonly startedAt?: string
  readonly endedAt?: string
  readonly routes: ReadonlyArray<string>
  /** The adapter kinds that wrote the turn's answers (from their replay state). */
  readonly adapters: ReadonlyArray<Kind>
  readonly inputTokens: number
  readonly outputTokens: number
  readonly retries: ReadonlyArray<Retry>
  readonly degraded: ReadonlyArray<Degraded>
  readonly refusals: ReadonlyArray<Refusal>
  readonly cuts: ReadonlyArray<Cut>
  readonly rules: ReadonlyArray<{ readonly tool: string; readonly decision: string }>
}

const routeOf = (message: Message): string => message.source.kind === "model" ? `${message.source.provider}/${message.source.model}` : message.source.kind

const entriesOf = (state: unknown): number | undefined => {
  const blocks = typeof state === "object" && state !== null ? (state as { blocks?: unknown }).blocks : undefined
  return Array.isArray(blocks) ? blocks.length : undefined
}

/** The envelope of the raw finish chunk in a raw chunk event, read without decoding the batch. */
const finishStateOf = (event: SessionLog.RawChunkEvent): { readonly found: boolean; readonly state?: unknown } => {
  const chunks: ReadonlyArray<unknown> = event.type === "assistant/chunk" ? [event.data.chunk] : event.data.entries
  for (const chunk of chunks) {
    const c = chunk as { readonly type?: unknown; readonly replayState?: unknown }
    if (c.type === "finish") return { found: true, state: c.replayState }
  }
  return { found: false }
}

class Gathering {
  startedAt: string | undefined
  endedAt: string | undefined
  readonly routes = new Set<string>()
  readonly adapters = new Set<Kind>()
  inputTokens = 0
  outputTokens = 0
  readonly retries: Array<Retry> = []
  readonly degraded: Array<Degraded> = []
  readonly refusals: Array<Refusal> = []
  readonly cuts: Array<Cut> = []
  readonly rules: Array<{ tool: string; decision: string }> = []
  summaryRequest = false
  finishState: unknown

  done(): Facts {
    return {
      ...(this.startedAt === undefined ? {} : { startedAt: this.startedAt }),
      ...(this.endedAt === undefined ? {} : { endedAt: this.endedAt }),
      routes: [...this.routes],
      adapters: [...this.adapters],
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      retries: this.retries,
      degraded: this.degraded,
      refusals: this.refusals,
      cuts: this.cuts,
      rules: this.rules,
    }
  }
}

/** A message of the history that replays natively under the adapter that wrote it, and why any other sends it neutral. */
interface Written {
  readonly seq: number
  readonly messageId: string
  readonly route: string
  readonly kind: Kind
  readonly elsewhere: Partial<Record<Kind, string>>
}

/**
 * Facts turn by turn, in the order the transcript ends its turns: a turn's
 * facts are done at its `turn/end`, or when the next turn starts without one
 * (as the transcript ends it), or at `finish`. Events between turns count
 * with the next turn, as the transcript shows compactions written between
 * turns with the next one.
 */
export class TurnFacts {
  private current = new Gathering()
  private started = false
  private readonly ready: Array<Facts> = []
  /** The adapter kind of the latest answer (none yet). */
  private inUse: Kind | undefined
  /** The history a request sends (from the latest compaction on), as far as a move between adapters changes it. */
  private history: Array<Written> = []

  add(event: SessionLog.SessionEvent): void {
    if (event.type === "turn/start") {
      if (this.started) this.close()
      this.started = true
      this.current.startedAt = event.time
    }
    const g = this.current
    switch (event.type) {
      case "request/start": {
        const route = `${event.data.provider}/${event.data.model}`
        g.routes.add(route)
        g.summaryRequest = event.data.purpose === "compaction"
        g.finishState = undefined
        if ((event.data.attempt ?? 1) > 1) g.retries.push({ step: event.data.step ?? 0, attempt: event.data.attempt!, route })
        break
      }
      case "assistant/chunk":
      case "assistant/chunks": {
        const finish = finishStateOf(event)
        if (finish.found) g.finishState = finish.state
        break
      }
      case "assistant/message": {
        g.inputTokens += event.data.usage?.inputTokens ?? 0
        g.outputTokens += event.data.usage?.outputTokens ?? 0
        const message = event.data.message
        if (g.summaryRequest) break
        this.judge(event.seq, message, g)
        if (event.data.finish.kind === "max-tokens") {
          const streamedEntries = entriesOf(g.finishState)
          g.cuts.push({
            messageId: message.id,
            pruned: message.source.kind === "model" ? message.source.replayState : undefined,
            ...(streamedEntries === undefined ? {} : { streamedEntries }),
          })
        }
        break
      }
      case "context/compaction": {
        const kept = event.data.firstKeptSeq
        this.history = this.history.filter((w) => w.seq >= kept)
        break
      }
      case "replay/degrade": {
        const { messageIds, model, provider, reason } = event.data
        // Sent provider-neutral from here on whatever the adapter: no longer changed by a move.
        const refused = new Set<string>(messageIds)
        this.history = this.history.filter((w) => !refused.has(w.messageId))
        g.refusals.push({ seq: event.seq, messageIds, route: `${provider}/${model}`, reason })
        break
      }
      case "permission/rule":
        g.rules.push({ tool: event.data.tool, decision: event.data.decision })
        break
      case "turn/end":
        g.endedAt = event.time
        this.close()
        break
      default:
        break
    }
  }

  /**
   * An answer: degraded under its own adapter, or kept in the history; when
   * its adapter is not the one of the answer before, each message of the
   * history of another kind is marked as sent neutral by this one.
   */
  private judge(seq: number, message: Message, g: Gathering): void {
    if (message.source.kind !== "model" || message.source.replayState === undefined) return
    const route = routeOf(message)
    const reason = ReplayCheck.ownReason(message)
    const kind = ReplayCheck.writtenBy(message)
    if (kind !== undefined) {
      g.adapters.add(kind)
      if (kind !== this.inUse) {
        for (const w of this.history) {
          const why = w.elsewhere[kind]
          if (w.kind === kind || why === undefined) continue
          g.degraded.push({ messageId: w.messageId, route: w.route, reason: why, moved: { writtenBy: w.kind, sentBy: kind } })
        }
        this.inUse = kind
      }
    }
    if (reason !== undefined) g.degraded.push({ messageId: message.id, route, reason })
    else if (kind !== undefined) {
      const elsewhere: Partial<Record<Kind, string>> = {}
      for (const other of KINDS) {
        const why = other === kind ? undefined : ReplayCheck.reasonUnder(message, other)
        if (why !== undefined) elsewhere[other] = why
      }
      this.history.push({ seq, messageId: message.id, route, kind, elsewhere })
    }
  }

  /** The facts of the turn being read, as far as it is read (`view` shows it before it ends). */
  peek(): Facts {
    return this.current.done()
  }

  private close(): void {
    this.ready.push(this.current.done())
    this.current = new Gathering()
    this.started = false
  }

  /** The facts of the next turn the transcript ended (in order). */
  take(): Facts {
    return this.ready.shift() ?? new Gathering().done()
  }

  /** The facts of a turn still open at the end of the log. */
  finish(): Facts {
    if (this.started) this.close()
    return this.take()
  }
}
