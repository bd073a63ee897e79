/**
 * A session as one self-contained HTML page, written as the log is read: the
 * head and the session's facts first (from a first pass, `SessionFacts`),
 * then one section per turn as each turn ends — the transcript's turns as
 * `show` builds them (`TranscriptStream.Printer`), with the turn's facts
 * gathered beside them (`Facts.TurnFacts`) — then compactions written after
 * the last turn, a torn tail, and the page's style and script. `HtmlPage`
 * holds one turn's events at a time, never the session.
 */
import type { SessionLog } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"
import * as Transcript from "../Transcript.js"
import { Printer } from "../TranscriptStream.js"
import { type SessionFacts, TurnFacts } from "./Facts.js"
import { itemHtml, turnHtml } from "./HtmlTurn.js"
import { escape } from "./Markdown.js"
import { CSP, SCRIPT, STYLE } from "./PageAssets.js"

export interface PageInfo {
  readonly header: SessionLog.SessionHeader
  readonly facts: SessionFacts
  /** Which store the session was read from (jsonl, sqlite, postgres). */
  readonly store: string
  /** The turnlog that wrote the page. */
  readonly version: string
  /** Served by `view`: the page may connect back to its own server for what is appended. */
  readonly live?: boolean
}

const fact = (name: string, value: string) => `<dt>${name}</dt><dd>${value}</dd>`

/** The page up to its first turn: head, the session's facts, the sidebar's controls. */
export const head = (info: PageInfo): string => {
  const { facts, header } = info
  const title = header.title ?? (facts.firstPrompt === undefined || facts.firstPrompt === "" ? `session ${header.id}` : facts.firstPrompt)
  const routes = [...facts.routes]
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${info.live === true ? `${CSP}; connect-src 'self'` : CSP}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="generator" content="turnlog ${escape(info.version)}">
<title>${escape(title)} · turnlog</title>
<style>${STYLE}</style>
</head><body>
<nav id="side"><input id="search" type="search" placeholder="Search the session ( / )" aria-label="Search the session">
<div id="count"></div>
<label><input type="checkbox" data-filter="prompts"> prompts only</label>
<label><input type="checkbox" data-filter="notools"> no tools</label>
<label><input type="checkbox" data-filter="problems"> problems only</label>
<div class="buttons"><button id="thinking" type="button">thinking: open/close all</button><button id="results" type="button">long results: open/close all</button></div>
<ol id="toc"></ol></nav>
<main>
<header class="session"><h1>${escape(title)}</h1><dl>` +
    fact("session", `<code>${escape(header.id)}</code>`) +
    fact("directory", `<code>${escape(header.cwd)}</code>`) +
    fact("created", escape(header.createdAt)) +
    fact("updated", escape(facts.updatedAt ?? header.createdAt)) +
    fact("models", routes.length === 0 ? "none" : routes.map((r) => `<code>${escape(r)}</code>`).join(", ")) +
    fact("turns", facts.turns.toLocaleString("en-US")) +
    fact(
      "tokens",
      `${facts.inputTokens.toLocaleString("en-US")} in / ${facts.outputTokens.toLocaleString("en-US")} out (as the providers reported them; cost not recorded)`,
    ) +
    fact("store", `${escape(info.store)}, log version ${header.version}, ${facts.events.toLocaleString("en-US")} events`) +
    fact("keys", "<kbd>j</kbd>/<kbd>k</kbd> next/previous turn, <kbd>/</kbd> search") +
    `</dl></header>\n`
}

const trailer = (
  trailing: ReadonlyArray<Transcript.Item>,
  recovery: SessionStore.Recovery,
  live: Live | undefined,
): string => {
  let out = ""
  if (trailing.length > 0) out += `<section class="trailer">${trailing.map(itemHtml).join("")}</section>\n`
  const torn = recovery.tornTail
  if (torn !== undefined) {
    out +=
      `<section class="trailer"><div class="item mark torn"><div class="who">torn tail</div><p>${torn.bytes} bytes at line ${torn.line}: an unfinished write, cut off and kept aside when the session is next opened.</p></div></section>\n`
  }
  if (live !== undefined) out += `<div id="live" data-url="${escape(live.url)}" data-next="${live.next}"></div>\n`
  return `${out}</main>\n<script>${SCRIPT}</script>\n</body></html>\n`
}

/** Where a page served by `view` asks for what follows: the events' address and the first seq it has not shown. */
export interface Live {
  readonly url: string
  readonly next: number
}

/** Writes the page's turns as events arrive (in seq order, from seq 1). */
export class HtmlPage {
  private readonly printer: Printer
  private readonly facts = new TurnFacts()
  private turns = 0
  /** The events of the turn being read (and what came before it since the last turn ended), for `openTurn`. */
  private pending: Array<SessionLog.SessionEvent> = []
  /** The seq after the last event read. */
  next = 1

  constructor(private readonly header: SessionLog.SessionHeader, keptFrom: number) {
    this.printer = new Printer(header, keptFrom)
  }

  /** The sections of the turns that end among `events`. */
  add(events: Iterable<SessionLog.SessionEvent>): string {
    return this.addTurns(events).map((turn) => turn.html).join("")
  }

  /** The turns that end among `events`, each with its number. */
  addTurns(events: Iterable<SessionLog.SessionEvent>): Array<{ readonly n: number; readonly html: string }> {
    const page = Array.from(events)
    for (const event of page) {
      this.facts.add(event)
      if (event.type === "turn/start" && this.pending.some((e) => e.type === "turn/start")) this.pending = []
      this.pending.push(event)
      if (event.type === "turn/end") this.pending = []
      this.next = event.seq + 1
    }
    return this.printer.add(page).ended.map((turn) => {
      const n = ++this.turns
      return { n, html: turnHtml(n, turn, this.facts.take()) }
    })
  }

  /** The turn being read, as far as it is written (`view` shows it and replaces it as more arrives). */
  openTurn(): { readonly n: number; readonly html: string } | undefined {
    const turn = Transcript.fromSession({ header: this.header, events: this.pending, recovery: {} }).turns[0]
    if (turn === undefined) return undefined
    // The page's own facts have read the same events, with the history a move between adapters needs.
    return { n: this.turns + 1, html: turnHtml(this.turns + 1, turn, this.facts.peek(), undefined, true) }
  }

  /** A turn still open, compactions after the last turn, a torn tail, and the page's end. */
  finish(recovery: SessionStore.Recovery, live?: string): string {
    const last = this.printer.finish(recovery)
    let out = ""
    for (const turn of last.ended) out += turnHtml(++this.turns, turn, this.facts.finish(), recovery.openTurn?.holder?.pid)
    return out + trailer(last.trailing ?? [], recovery, live === undefined ? undefined : { url: live, next: this.next })
  }
}
