/**
 * A transcript printed as its events arrive, so `show` holds one turn's
 * events at a time, never the session. The events of the turn being read
 * (and the compactions written before it) are kept; each time more arrive,
 * they are made into that one turn by `Transcript.fromSession` — the very
 * code `show` of a whole session runs — and what was not printed yet of it is
 * printed. When the turn ends, its events are let go.
 *
 * What a turn looks like can depend on later events in one way only: a turn
 * is marked compacted when it starts before the history the latest compaction
 * keeps, so that seq (`keptFrom`) is found by a first pass (the one
 * `SessionStore.recovery` makes) and given here.
 */
import type { SessionLog } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"
import * as Transcript from "./Transcript.js"
import * as TranscriptText from "./TranscriptText.js"

/** The seq the latest compaction keeps history from (0: none), from one pass over the events. */
export class KeptFrom {
  value = 0
  add(event: SessionLog.SessionEvent): void {
    if (event.type === "context/compaction") this.value = event.data.firstKeptSeq
  }
}

const noRecovery: SessionStore.Recovery = {}

/** Where the turn being read starts, as `Transcript.fromSession` counts it: its first prompt, else its `turn/start`. */
const startOf = (events: ReadonlyArray<SessionLog.SessionEvent>): number | undefined => {
  let start: number | undefined
  for (const event of events) {
    if (event.type === "turn/start") start = event.seq
    else if (event.type === "user/message" && start !== undefined) return event.seq
  }
  return start
}

export interface Printed {
  /** Lines to print for people (each ends with a newline when printed). */
  readonly lines: ReadonlyArray<string>
  /** The turns that ended, as `--json` gives them. */
  readonly ended: ReadonlyArray<Transcript.Turn>
  /** `finish` only: compactions written after the last turn. */
  readonly trailing?: ReadonlyArray<Transcript.Item>
}

export class Printer {
  private events: Array<SessionLog.SessionEvent> = []
  private started = false
  private opened = false
  private printedItems = 0
  /** Turns printed (ended or not), so the next one's number is one more. */
  private turns = 0
  /** The system prompt in force before the turn being read (its hash). */
  private system: string | undefined

  constructor(private readonly header: SessionLog.SessionHeader, private readonly keptFrom: number) {}

  /** The turn being read, as `show` of the session so far would give it. */
  private current(): { readonly turn?: Transcript.Turn; readonly trailing: ReadonlyArray<Transcript.Item> } {
    const transcript = Transcript.fromSession({ header: this.header, events: this.events, recovery: noRecovery }, this.system)
    const turn = transcript.turns[0]
    if (turn === undefined) return { trailing: transcript.trailing ?? [] }
    const { compacted: _, ...rest } = turn
    const start = startOf(this.events)
    return {
      turn: start !== undefined && start < this.keptFrom ? { ...rest, compacted: true } : rest,
      trailing: [],
    }
  }

  /** Prints what `turn` has that was not printed yet; `end` closes it. */
  private print(turn: Transcript.Turn, lines: Array<string>, writer?: number, close = true): void {
    if (!this.opened && (turn.items.length > 0 || turn.end !== undefined || !close)) {
      this.opened = true
      this.turns++
      lines.push(...TranscriptText.turnOpening(this.turns, turn))
    }
    if (!this.opened) return
    for (const item of turn.items.slice(this.printedItems)) lines.push(...TranscriptText.itemLines(item, this.header.cwd))
    this.printedItems = turn.items.length
    if (turn.end !== undefined || !close) lines.push(TranscriptText.turnClosing(this.turns, turn, writer))
  }

  private reset(): void {
    this.system = Transcript.lastSystem(this.events, this.system)
    this.events = []
    this.started = false
    this.opened = false
    this.printedItems = 0
  }

  /** Takes the next events (in seq order); returns what can be printed of them now. */
  add(events: Iterable<SessionLog.SessionEvent>): Printed {
    const lines: Array<string> = []
    const ended: Array<Transcript.Turn> = []
    const settle = () => {
      const { turn } = this.current()
      if (turn === undefined) return
      this.print(turn, lines)
      if (turn.end !== undefined) {
        ended.push(turn)
        this.reset()
      }
    }
    for (const event of events) {
      // A turn that starts while one is open: that one stopped without an end (as a whole `show` shows it).
      if (event.type === "turn/start" && this.started) {
        const { turn } = this.current()
        if (turn !== undefined) {
          this.print(turn, lines, undefined, false)
          ended.push(turn)
        }
        this.reset()
      }
      if (event.type === "turn/start") this.started = true
      this.events.push(event)
      if (event.type === "turn/end") settle()
    }
    if (this.started) settle()
    return { lines, ended }
  }

  /**
   * The end of a whole `show`: a turn still open is closed with why (`writer`:
   * the live process writing it), then compactions after the last turn and a torn tail.
   */
  finish(recovery: SessionStore.Recovery): Printed {
    const lines: Array<string> = []
    const ended: Array<Transcript.Turn> = []
    const { trailing, turn } = this.current()
    if (turn !== undefined) {
      this.print(turn, lines, recovery.openTurn?.holder?.pid, false)
      ended.push(turn)
    }
    lines.push(...TranscriptText.trailingLines(trailing))
    if (recovery.tornTail !== undefined) lines.push(...TranscriptText.tornTailLines(recovery.tornTail))
    this.reset()
    return { lines, ended, ...(trailing.length > 0 ? { trailing } : {}) }
  }
}
