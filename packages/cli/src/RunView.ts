/**
 * What `turnlog run` shows of a turn as it streams: the answer on stdout,
 * everything else on stderr. Reasoning is set apart from the answer (dim on
 * a terminal, labelled when not), a spinner waits for the model while stderr
 * is a terminal, tool results are summed up with their counts (and an edit's
 * diff), and on a terminal the turn ends with a line of tokens, context,
 * time and cost.
 * Text from the model or a tool is made visible (see `Visible`) before it is
 * styled: only this module's own sequences reach the terminal.
 */
import type { AgentLoop } from "@turnlog/agent"
import type { LlmAdapter } from "@turnlog/llm"
import { FailureMessage, type Usage } from "@turnlog/protocol"
import * as Style from "./chat/Style.js"
import * as EditDiff from "./EditDiff.js"
import { visible } from "./Visible.js"

export interface RunViewOptions {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
  /** stderr is a terminal: the spinner is drawn and reasoning dimmed (with colour). */
  readonly errTty: boolean
  /** Colour and dim allowed (not `NO_COLOR`, not `--no-color`). */
  readonly color: boolean
  /** `<provider>/<model>`, named by the spinner. */
  readonly route: string
  /** The model's window and prices, when the adapter knows them. */
  readonly model?: LlmAdapter.ModelInfo | undefined
  /** A tool call's title for people (the tool's display), else its name. */
  readonly title?: (call: { readonly name: string; readonly arguments: string }) => string
  /**
   * Draws complete markdown blocks for the terminal (stdout a terminal); the
   * answer is then drawn a block at a time. Without it the text is written raw.
   */
  readonly markdown?: ((text: string) => string) | undefined
  readonly now?: () => number
  /** Milliseconds between spinner frames. */
  readonly frameMs?: number
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`

/** The lines of `text`, a final newline not making one more. */
const linesOf = (text: string): Array<string> => (text === "" ? [] : text.replace(/\n$/, "").split("\n"))

const firstLine = (text: string, max = 160): string => {
  const line = text.split("\n", 1)[0] ?? ""
  return line.length > max ? `${line.slice(0, max)}…` : line
}

/** A successful tool result in one line, with its full count where the tool has one. */
export const summary = (name: string, content: string): string => {
  const lines = linesOf(content)
  switch (name) {
    case "list_files": {
      const more = /^\[(\d+) more entries\]$/.exec(lines.at(-1) ?? "")
      const n = more === null ? lines.length : lines.length - 1 + Number(more[1])
      return plural(n, "entry", "entries")
    }
    case "read_file": {
      const truncated = /^\[file truncated: \d+ more bytes\]$/.test(lines.at(-1) ?? "")
      return `${plural(truncated ? lines.length - 1 : lines.length, "line", "lines")}${truncated ? " (truncated)" : ""}`
    }
    case "edit_file":
    case "todo":
      return firstLine(content)
    default:
      return lines.length > 1 ? `${firstLine(content)} (${lines.length} lines)` : firstLine(content)
  }
}

/** A token count for people: 950, 12.3k, 1.2M. */
export const tokens = (n: number): string =>
  n >= 1_000_000
    ? `${Number((n / 1_000_000).toFixed(1))}M`
    : n >= 10_000
    ? `${Number((n / 1000).toFixed(1))}k`
    : String(n)

/**
 * The units of a streaming markdown text that can be drawn now, each on its
 * own: a line, a blank line, a whole code fence, a whole table; and the rest,
 * still to come. `final`: the text is complete, all of it is drawn.
 */
export const units = (text: string, final = false): { readonly units: Array<string>; readonly rest: string } => {
  const done: Array<string> = []
  let fence: string | undefined
  let start = 0 // where the unit under way begins
  let table = false
  let at = 0
  for (;;) {
    const nl = text.indexOf("\n", at)
    if (nl < 0) break
    const line = text.slice(at, nl)
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
        fence = undefined
        done.push(text.slice(start, nl + 1))
        start = nl + 1
      }
    } else if (marker !== undefined) {
      if (table) done.push(text.slice(start, at))
      table = false
      fence = marker
      start = at
    } else if (line.trimStart().startsWith("|")) {
      if (!table) {
        table = true
        start = at
      }
    } else {
      if (table) done.push(text.slice(start, at))
      table = false
      done.push(text.slice(at, nl + 1))
      start = nl + 1
    }
    at = nl + 1
  }
  const rest = text.slice(start)
  if (final && rest !== "") return { units: [...done, rest], rest: "" }
  return { units: done, rest }
}

/** An amount in US dollars: cents above a dollar, four places below. */
export const dollars = (n: number): string => `$${n >= 1 ? n.toFixed(2) : n.toFixed(4)}`

const inputOf = (u: Usage): number => u.inputTokens + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0)

export class RunView {
  private outOpen = false // stdout's line has text and no newline yet
  private md = "" // the answer's markdown not drawn yet
  private mdBlank = true // the last unit drawn of this answer was a blank line (or none was)
  private errOpen = false // stderr's reasoning line has text and no newline yet
  private reasoning = false // the last thing streamed was reasoning
  private spinner: { timer: ReturnType<typeof setInterval>; frame: number } | undefined
  private readonly usages: Array<Usage> = []
  private readonly pending = new Set<string>() // tool calls without a result yet
  private readonly started: number
  private readonly now: () => number

  constructor(private readonly options: RunViewOptions) {
    this.now = options.now ?? Date.now
    this.started = this.now()
  }

  /** Shows one update of the turn. */
  apply(update: AgentLoop.AgentUpdate): void {
    switch (update.type) {
      case "turn-start":
        return this.wait()
      case "text-delta":
        if (update.text === "") return
        this.endReasoning()
        if (this.options.markdown !== undefined) {
          this.md += update.text
          return this.draw(false)
        }
        this.stopWaiting()
        this.options.out(visible(update.text))
        this.outOpen = !update.text.endsWith("\n")
        return
      case "reasoning-delta":
        if (update.text === "") return
        this.stopWaiting()
        this.endOut()
        this.streamReasoning(update.text)
        return
      case "tool-call": {
        const title = this.options.title?.(update) ?? update.name
        this.pending.add(update.callId)
        return this.say(`tool ${title}`)
      }
      // (Only an editor runs commands in a terminal of its own: `tool-terminal`.)
      case "tool-running":
      case "tool-terminal":
        return
      case "tool-result": {
        this.pending.delete(update.callId)
        if (update.isError) {
          // A tool's own refusal may already say it failed (`edit_file failed: …`): said once.
          const said = firstLine(update.content)
          this.say(`tool ${update.name} failed: ${said.startsWith(`${update.name} failed: `) ? said.slice(update.name.length + 9) : said}`)
          return this.pending.size === 0 ? this.wait() : undefined
        }
        this.say(`tool ${update.name} done: ${summary(update.name, update.content)}`)
        if (update.name === "edit_file") this.diff(update.content)
        // The model's plan, as the checklist its result is.
        if (update.name === "todo") { for (const line of linesOf(update.content).slice(1)) this.options.err(`  ${visible(line)}\n`) }
        // Once every call has its result, the model is asked again (a call
        // still to run may first ask a permission on this terminal).
        return this.pending.size === 0 ? this.wait() : undefined
      }
      case "usage":
        this.usages.push(update.usage)
        return
      case "retry":
        this.say(`${FailureMessage.readable(update.failure.message)} (${update.failure.code}); retry ${update.attempt} in ${update.delayMs} ms`)
        // Waiting for the model again.
        return this.wait()
      case "compaction":
        this.say(
          update.phase === "start"
            ? "compacting: summarising the older history to make room"
            : `older history summarised (${tokens(update.tokensBefore)} → ${tokens(update.tokensAfter)} tokens)`,
        )
        // The summary request, then the turn's own, is waited for.
        return this.wait()
      case "turn-end":
        this.close()
        // For the person at the terminal; a script reads usage from --json.
        return this.options.errTty ? this.say(this.endLine()) : undefined
    }
  }

  /** Ends what is open: the spinner, the answer's line, the reasoning's line. */
  close(): void {
    this.stopWaiting()
    this.endReasoning()
    this.endOut()
  }

  /** A note on stderr, on its own line. */
  say(line: string): void {
    this.close()
    this.options.err(`turnlog: ${visible(line)}\n`)
  }

  /** Tokens in and out, the context used as a share of the window, the time, the cost. */
  endLine(): string {
    const parts: Array<string> = []
    const last = this.usages.at(-1)
    if (last !== undefined) {
      const input = this.usages.reduce((n, u) => n + inputOf(u), 0)
      const output = this.usages.reduce((n, u) => n + u.outputTokens, 0)
      parts.push(`${tokens(input)} in, ${tokens(output)} out`)
      const window = this.options.model?.contextWindow
      if (window !== undefined && window > 0) {
        const used = inputOf(last) + last.outputTokens
        parts.push(`${Math.round((100 * used) / window)}% of ${tokens(window)} context`)
      }
    }
    parts.push(`${((this.now() - this.started) / 1000).toFixed(1)} s`)
    const cost = this.options.model?.cost
    if (last !== undefined && cost !== undefined && (cost.input > 0 || cost.output > 0)) {
      const spent = this.usages.reduce(
        (n, u) =>
          n + (u.inputTokens * cost.input + u.outputTokens * cost.output + (u.cacheReadTokens ?? 0) * cost.cacheRead +
              (u.cacheWriteTokens ?? 0) * cost.cacheWrite) / 1_000_000,
        0,
      )
      parts.push(dollars(spent))
    }
    return parts.join(" · ")
  }

  private streamReasoning(text: string): void {
    const shown = visible(text)
    if (this.options.errTty && this.options.color) {
      // Closed in every delta: an interrupted turn never leaves the terminal dim.
      this.options.err(Style.dim(shown))
    } else {
      this.options.err(this.reasoning ? shown : `reasoning: ${shown}`)
    }
    this.reasoning = true
    this.errOpen = !text.endsWith("\n")
  }

  private endReasoning(): void {
    if (this.errOpen) this.options.err("\n")
    this.errOpen = false
    this.reasoning = false
  }

  /** Draws the units of the answer's markdown complete so far (all of it when `final`). */
  private draw(final: boolean): void {
    const render = this.options.markdown
    if (render === undefined || this.md === "") return
    const { units: ready, rest } = units(this.md, final)
    this.md = rest
    for (const unit of ready) {
      if (unit.trim() === "") {
        // Blank lines between blocks, one at most, never first.
        if (!this.mdBlank) this.options.out("\n")
        this.mdBlank = true
        continue
      }
      this.stopWaiting()
      const drawn = render(visible(unit))
      if (drawn !== "") this.options.out(`${drawn}\n`)
      this.mdBlank = false
    }
  }

  private endOut(): void {
    this.draw(true)
    this.mdBlank = true
    if (this.outOpen) this.options.out("\n")
    this.outOpen = false
  }

  private diff(content: string): void {
    const paint = this.options.errTty && this.options.color
    for (const line of EditDiff.ofEditResult(content)) this.options.err(`  ${EditDiff.paintLine(line, paint)}\n`)
  }

  /** The spinner, on a terminal's stderr only, until the model's first token. */
  private wait(): void {
    if (!this.options.errTty || this.spinner !== undefined) return
    this.close()
    const draw = () => {
      const s = this.spinner
      if (s === undefined) return
      const label = `${FRAMES[s.frame % FRAMES.length]} waiting for ${visible(this.options.route)}…`
      this.options.err(`\r${this.options.color ? Style.dim(label) : label}\x1b[K`)
      s.frame++
    }
    const timer = setInterval(draw, this.options.frameMs ?? 80)
    timer.unref?.()
    this.spinner = { timer, frame: 0 }
    draw()
  }

  private stopWaiting(): void {
    if (this.spinner === undefined) return
    clearInterval(this.spinner.timer)
    this.spinner = undefined
    this.options.err("\r\x1b[K")
  }
}
