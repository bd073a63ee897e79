/**
 * What the HTML page shows beside a transcript's items, read from the same
 * events: when each turn started and ended, the models it asked, the tokens
 * they reported, retried attempts, and what only turnlog knows — a message
 * whose replay state this build would degrade (`INVALID_REPLAY_STATE`, by the
 * checks `doctor` runs), a provider's refusal (`replay/degrade`), the pruned
 * envelope of a response cut at the output limit, standing permission
 * answers. `SessionFacts` is one pass over the whole log (the header's
 * figures); `TurnFacts` is gathered turn by turn beside the transcript, so
 * neither holds more than a turn.
 */
import * as PiAiReplay from "@turnlog/llm-pi-ai/PiAiReplay"
import type { Message, SessionLog } from "@turnlog/protocol"

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
  readonly inputTokens: number
  readonly outputTokens: number
  readonly retries: ReadonlyArray<Retry>
  readonly degraded: ReadonlyArray<Degraded>
  readonly refusals: ReadonlyArray<Refusal>
  readonly cuts: ReadonlyArray<Cut>
  readonly rules: ReadonlyArray<{ readonly tool: string; readonly decision: string }>
}

const routeOf = (message: Message): string =>
  message.source.kind === "model" ? `${message.source.provider}/${message.source.model}` : message.source.kind

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
        if (message.source.kind === "model" && message.source.replayState !== undefined) {
          PiAiReplay.toPiAssistant(message, (error) => {
            g.degraded.push({ messageId: message.id, route: routeOf(message), reason: error.reason })
          })
        }
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
      case "replay/degrade": {
        const { messageIds, model, provider, reason } = event.data
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
