/**
 * What the interactive session shows: the conversation (the user's prompts,
 * answers rendered as markdown, reasoning dimmed, tool calls as status
 * lines), a permission question when a tool needs one, the editor, and a
 * footer. It only presents: the session driver feeds it the loop's updates
 * and hears the user through `Handlers`. Every text from a model, a tool or
 * the user goes through `visible` first, so a control sequence in it is
 * shown, not obeyed. The terminal is injected: the process's own, or a
 * headless one in tests.
 */
import {
  type Component,
  Container,
  Editor,
  Markdown,
  matchesKey,
  type SelectItem,
  SelectList,
  type SlashCommand,
  Spacer,
  type Terminal,
  Text,
  TUI,
} from "@mariozechner/pi-tui"
import type { AgentLoop, Tools } from "@turnlog/agent"
import { FailureMessage, type SessionLog } from "@turnlog/protocol"
import { CombinedAutocompleteProvider } from "@mariozechner/pi-tui"
import * as Color from "../Color.js"
import * as EditDiff from "../EditDiff.js"
import * as FailureLine from "../FailureLine.js"
import { dollars, summary } from "../RunView.js"
import { visible } from "../Visible.js"
import { Columns, Line, Rows } from "./Blocks.js"
import * as Style from "./Style.js"

export interface Handlers {
  /** A prompt or a slash command, as typed (Enter). */
  readonly onSubmit: (text: string) => void
  /** Ctrl-C while a turn runs. */
  readonly onCancel: () => void
  /** Ctrl-D at an empty prompt, or Ctrl-C twice there. */
  readonly onExit: () => void
  /** Shift-Tab between turns: the next mode of the cycle (see `SlashCommands.nextMode`). */
  readonly onCycleMode?: () => void
}

/** The answers to a permission question, as the permission service's standing rules know them. */
export type Answer = "allow-once" | "allow-always" | "reject"

export interface Question {
  /** One line: what the tool will do, e.g. `Write notes.md`. */
  readonly title: string
  readonly tool: string
  /** What will be written or run, a few lines. */
  readonly detail: ReadonlyArray<string>
  /** `detail` is diff lines (`-` removed, `+` added), painted as a diff is. */
  readonly diff?: boolean
}

export interface Footer {
  readonly model: string
  readonly session?: string
  readonly inputTokens?: number | undefined
  readonly outputTokens?: number | undefined
  /** The model's context window, when the adapter knows it. */
  readonly contextWindow?: number | undefined
  /** Tokens in context after the latest answer, from the log (else the latest usage's). */
  readonly contextUsed?: number | undefined
  /** The session's answers so far in US dollars, where their models have prices. */
  readonly costUsd?: number | undefined
  /** The session's mode, shown when it is not `ask`. */
  readonly mode?: SessionLog.Mode
  /** The session's reasoning effort, shown when it is not `off`. */
  readonly reasoning?: SessionLog.ReasoningEffort
}

type Streaming =
  | { readonly kind: "text"; readonly view: Markdown; text: string }
  | { readonly kind: "reasoning"; readonly view: Text; text: string }

/** How a tool call shows: its display's title and the file changes its arguments ask for. */
export interface Shown {
  readonly title: string
  readonly changes?: ReadonlyArray<Tools.Change> | undefined
}

/** Lines of an edit's diff shown under its status line; the log keeps the whole of it. */
const DIFF_LINES = 20

const count = (n: number): string => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n))

export interface ViewOptions {
  /** What the editor completes after `/`. */
  readonly commands: ReadonlyArray<SlashCommand>
  /** Where `@` completes file names from. */
  readonly cwd: string
  /** Earlier prompts, oldest first, for Up to recall. */
  readonly history?: ReadonlyArray<string>
  /** Called with each prompt sent, to keep it for next time. */
  readonly remember?: (text: string) => void
  /** The variable a route's key is read from, named when the provider refuses it (see `FailureLine`). */
  readonly keyVariable?: (route: string) => string | undefined
}

export class ChatView {
  readonly tui: TUI
  private readonly transcript = new Container()
  private readonly question = new Container()
  private readonly editor: Editor
  private readonly footerText = new Line()
  private streaming: Streaming | undefined
  private readonly tools = new Map<
    string,
    { readonly line: Text; readonly title: string; readonly name: string; readonly changes: ReadonlyArray<Tools.Change> }
  >()
  private busy = false
  /** The status line of a compaction under way. */
  private compacting: Text | undefined
  /** Every piece of reasoning shown, so Ctrl-O can fold and unfold them all. */
  private readonly reasonings: Array<{ readonly view: Text; readonly text: () => string }> = []
  private reasoningFolded = false
  private exitArmed = false
  private footer: Footer = { model: "" }
  private handlers: Handlers = { onSubmit: () => {}, onCancel: () => {}, onExit: () => {} }

  private readonly keyVariable: ViewOptions["keyVariable"]

  constructor(terminal: Terminal, options: ViewOptions) {
    this.keyVariable = options.keyVariable
    this.tui = new TUI(terminal)
    this.editor = new Editor(this.tui, Style.editor, { paddingX: 1 })
    this.editor.setAutocompleteProvider(new CombinedAutocompleteProvider([...options.commands], options.cwd, null))
    for (const earlier of options.history ?? []) this.editor.addToHistory(earlier)
    this.editor.onSubmit = (text) => {
      const trimmed = text.trim()
      if (trimmed === "") return
      this.editor.addToHistory(text)
      options.remember?.(text)
      this.handlers.onSubmit(text)
    }
    this.tui.addChild(this.transcript)
    this.tui.addChild(this.question)
    this.tui.addChild(this.editor)
    this.tui.addChild(this.footerText)
    this.tui.setFocus(this.editor)
    this.tui.addInputListener((data) => this.onKey(data))
  }

  listen(handlers: Handlers): void {
    this.handlers = handlers
  }

  start(): void {
    this.renderFooter()
    this.tui.start()
  }

  stop(): void {
    this.tui.stop()
  }

  /** While a turn runs Enter does not send (the text typed stays), and Ctrl-C cancels the turn. */
  setBusy(busy: boolean): void {
    this.busy = busy
    this.editor.disableSubmit = busy
    this.renderFooter()
  }

  setFooter(footer: Partial<Footer>): void {
    this.footer = { ...this.footer, ...footer }
    this.renderFooter()
  }

  /** The user's prompt, as sent. */
  user(text: string): void {
    this.transcript.addChild(new Spacer(1))
    this.add(new Text(Style.bold(`› ${visible(text.trimEnd())}`), 1, 0))
  }

  /** A line about the session (not from the model), dimmed. */
  note(text: string): void {
    this.add(new Text(Style.gray(visible(text)), 1, 0))
  }

  /** A problem the user should read. */
  problem(text: string): void {
    this.add(new Text(Style.red(visible(text)), 1, 0))
  }

  /** Names and what each does, in two columns (see `Columns`); then `after`, a paragraph. */
  columns(rows: ReadonlyArray<readonly [string, string]>, after?: string): void {
    const safe = rows.map(([name, text]) => [visible(name), visible(text)] as const)
    if (after === undefined) return this.add(new Columns(safe))
    const both = new Container()
    both.addChild(new Columns(safe))
    both.addChild(new Spacer(1))
    both.addChild(new Text(visible(after), 1, 0))
    this.add(both)
  }

  /** A table: each row shown as it is, cut (not wrapped) where the terminal is narrower. */
  table(text: string): void {
    this.add(new Rows(visible(text.replace(/\n+$/, "")).split("\n")))
  }

  /** Preformatted text, shown as it is. */
  block(text: string): void {
    this.add(new Text(visible(text.replace(/\n+$/, "")), 1, 0))
  }

  /** One update of the loop; `shown` is how a `tool-call` shows (its tool's display). */
  apply(update: AgentLoop.AgentUpdate, shown?: Shown): void {
    switch (update.type) {
      case "text-delta":
        return this.stream("text", update.text)
      case "reasoning-delta":
        return this.stream("reasoning", update.text)
      case "tool-call": {
        const title = visible(shown?.title ?? update.name)
        const line = new Text(`${Style.yellow("⏺")} ${title} ${Style.gray("…")}`, 1, 0)
        this.tools.set(update.callId, { line, title, name: update.name, changes: shown?.changes ?? [] })
        return this.add(line)
      }
      case "tool-running": {
        const tool = this.tools.get(update.callId)
        tool?.line.setText(`${Style.yellow("⏺")} ${tool.title} ${Style.gray("running")}`)
        return this.tui.requestRender()
      }
      case "tool-result": {
        const tool = this.tools.get(update.callId)
        const name = tool?.name ?? update.name
        const said = visible(update.isError ? summary("", update.content) : summary(name, update.content))
        const status = update.isError
          ? `${Style.red("✗")} ${tool?.title ?? visible(name)} ${Style.red("failed")}${said === "" ? "" : `: ${said}`}`
          : `${Style.green("✓")} ${tool?.title ?? visible(name)} ${Style.gray(`done${said === "" ? "" : `: ${said}`}`)}`
        // What an edit changed, under its line, as `run` shows it.
        const diff = update.isError
          ? []
          : EditDiff.clipped(EditDiff.ofCall(name, update.content, tool?.changes), DIFF_LINES, Color.allowed())
        const text = [status, ...diff.map((line) => `  ${line}`)].join("\n")
        if (tool === undefined) return this.add(new Text(text, 1, 0))
        tool.line.setText(text)
        return this.tui.requestRender()
      }
      case "usage":
        return this.setFooter({
          inputTokens: update.usage.inputTokens + (update.usage.cacheReadTokens ?? 0) + (update.usage.cacheWriteTokens ?? 0),
          outputTokens: update.usage.outputTokens,
        })
      case "retry":
        return this.note(
          `${FailureMessage.readable(update.failure.message)} (${update.failure.code}); retry ${update.attempt} in ${Math.round(update.delayMs / 100) / 10} s`,
        )
      case "compaction":
        return this.compaction(update)
      // (Only an editor runs commands in a terminal of its own: `tool-terminal`.)
      case "turn-start":
      case "tool-terminal":
        return
      case "turn-end":
        this.streaming = undefined
        switch (update.reason) {
          case "completed":
            return
          case "cancelled":
          case "interrupted":
            return this.note("the turn was cancelled")
          case "max-tokens":
            return this.note("the answer stopped at the output limit; any unfinished tool call was dropped")
          case "max-steps":
            return this.problem("the turn stopped after the maximum number of steps")
          case "error":
            return this.problem(FailureLine.turnFailed(update.failure, this.keyVariable?.(this.footer.model)))
        }
    }
  }

  /**
   * A compaction as a status line: said while the summary is asked for, then
   * the same line says what it came to. A turn that ends first (the summary
   * failed, or was cancelled) leaves it as it was and says why below.
   */
  private compaction(update: Extract<AgentLoop.AgentUpdate, { type: "compaction" }>): void {
    if (update.phase === "start") {
      this.compacting = new Text(Style.gray("compacting: summarising the older history to make room…"), 1, 0)
      return this.add(this.compacting)
    }
    const said = Style.gray(`older history summarised (${count(update.tokensBefore)} → ${count(update.tokensAfter)} tokens)`)
    if (this.compacting === undefined) return this.add(new Text(said, 1, 0))
    this.compacting.setText(said)
    this.compacting = undefined
    this.tui.requestRender()
  }

  /**
   * A compaction that ended without a summary: its status line says why
   * (`said`: nothing to cut), or goes (it failed, and the failure is said below).
   */
  endCompaction(said?: string): void {
    const line = this.compacting
    this.compacting = undefined
    if (line === undefined) return said === undefined ? undefined : this.note(said)
    if (said === undefined) this.transcript.removeChild(line)
    else line.setText(Style.gray(visible(said)))
    this.tui.requestRender()
  }

  /**
   * Asks whether a tool may run. The editor gives way to the choices until
   * one is taken (Esc rejects); `withdraw` takes the question away unanswered
   * (the turn was cancelled).
   */
  ask(question: Question): { readonly answer: Promise<Answer>; readonly withdraw: () => void } {
    let settle: (answer: Answer) => void = () => {}
    const answer = new Promise<Answer>((resolve) => (settle = resolve))
    const items: Array<SelectItem> = [
      { value: "allow-once", label: "Allow once" },
      { value: "allow-always", label: "Allow always", description: `${visible(question.tool)} in this session` },
      { value: "reject", label: "Reject" },
    ]
    const list = new SelectList(items, items.length, Style.selectList)
    const close = () => {
      this.question.clear()
      this.tui.setFocus(this.editor)
      this.tui.requestRender()
    }
    list.onSelect = (item) => {
      close()
      settle(item.value as Answer)
    }
    list.onCancel = () => {
      close()
      settle("reject")
    }
    this.streaming = undefined
    this.question.addChild(new Spacer(1))
    this.question.addChild(new Text(`${Style.yellow("?")} ${Style.bold(`Allow ${visible(question.title)}?`)}`, 1, 0))
    for (const line of question.detail) {
      const shown = question.diff === true ? EditDiff.paintLine(line, Color.allowed()) : Style.gray(visible(line))
      this.question.addChild(new Text(shown, 3, 0))
    }
    this.question.addChild(list)
    this.tui.setFocus(list)
    this.tui.requestRender()
    return { answer, withdraw: close }
  }

  /** A choice among `items` (Enter picks, Esc gives up: `undefined`), the cursor on `selected`. */
  pick(title: string, items: ReadonlyArray<SelectItem>, selected?: string): Promise<string | undefined> {
    return new Promise((resolve) => {
      const list = new SelectList([...items], 10, Style.selectList, { minPrimaryColumnWidth: 30, maxPrimaryColumnWidth: 60 })
      // The choice in use is where the cursor starts: Enter keeps it.
      const at = items.findIndex((item) => item.value === selected)
      if (at > 0) list.setSelectedIndex(at)
      const close = (value: string | undefined) => {
        this.question.clear()
        this.tui.setFocus(this.editor)
        this.tui.requestRender()
        resolve(value)
      }
      list.onSelect = (item) => close(item.value)
      list.onCancel = () => close(undefined)
      this.streaming = undefined
      this.question.addChild(new Spacer(1))
      this.question.addChild(new Text(Style.bold(visible(title)), 1, 0))
      this.question.addChild(list)
      this.tui.setFocus(list)
      this.tui.requestRender()
    })
  }

  private stream(kind: Streaming["kind"], text: string): void {
    if (this.streaming === undefined || this.streaming.kind !== kind) {
      const started: Streaming = kind === "text"
        ? { kind, view: new Markdown("", 1, 0, Style.markdown), text: "" }
        : { kind, view: new Text("", 1, 0), text: "" }
      this.add(started.view)
      this.streaming = started
      if (started.kind === "reasoning") this.reasonings.push({ view: started.view, text: () => started.text })
    }
    this.streaming.text += text
    if (this.streaming.kind === "text") this.streaming.view.setText(visible(this.streaming.text))
    else this.showReasoning(this.streaming.view, this.streaming.text)
    this.tui.requestRender()
  }

  /** Reasoning, dimmed; folded to its first line while Ctrl-O has them folded. */
  private showReasoning(view: Text, text: string): void {
    const lines = visible(text).trim().split("\n")
    view.setText(
      this.reasoningFolded && lines.length > 1
        ? Style.dim(Style.italic(`${lines[0]} … (${lines.length - 1} more lines, Ctrl-O unfolds)`))
        : Style.dim(Style.italic(lines.join("\n"))),
    )
  }

  /** A new entry; whatever streams after it starts a new piece of the answer. */
  private add(component: Component): void {
    this.streaming = undefined
    this.transcript.addChild(component)
    this.tui.requestRender()
  }

  private renderFooter(): void {
    const f = this.footer
    const parts = [f.model]
    if (f.reasoning !== undefined && f.reasoning !== "off") parts.push(`reasoning ${f.reasoning}`)
    if (f.mode !== undefined && f.mode !== "ask") parts.push(f.mode)
    if (f.inputTokens !== undefined) parts.push(`↑${count(f.inputTokens)} ↓${count(f.outputTokens ?? 0)} tokens`)
    const used = f.contextUsed ?? (f.inputTokens === undefined ? undefined : f.inputTokens + (f.outputTokens ?? 0))
    if (used !== undefined && f.contextWindow !== undefined && f.contextWindow > 0) {
      parts.push(`${Math.round((100 * used) / f.contextWindow)}% of context`)
    }
    if (f.costUsd !== undefined) parts.push(dollars(f.costUsd))
    const hint = this.exitArmed
      ? "press Ctrl-C again to leave"
      : this.busy
      ? "Ctrl-C cancels the turn"
      : "/help for commands · Ctrl-D leaves"
    const session = f.session === undefined ? "" : ` · session ${visible(f.session)}`
    this.footerText.setText(Style.gray(`${parts.map(visible).join(" · ")} · ${hint}${session}`))
    this.tui.requestRender()
  }

  private onKey(data: string): { consume?: boolean } | undefined {
    if (matchesKey(data, "ctrl+c")) {
      if (this.busy) {
        this.handlers.onCancel()
      } else if (this.editor.getText() !== "") {
        this.editor.setText("")
        this.exitArmed = false
      } else if (this.exitArmed) {
        this.handlers.onExit()
      } else {
        this.exitArmed = true
      }
      this.renderFooter()
      return { consume: true }
    }
    if (this.exitArmed) {
      this.exitArmed = false
      this.renderFooter()
    }
    if (matchesKey(data, "ctrl+o")) {
      this.reasoningFolded = !this.reasoningFolded
      for (const r of this.reasonings) this.showReasoning(r.view, r.text())
      this.tui.requestRender()
      return { consume: true }
    }
    if (matchesKey(data, "shift+tab") && this.question.children.length === 0 && !this.editor.isShowingAutocomplete()) {
      if (this.busy) this.note("the mode changes between turns: Shift-Tab again once this one ends")
      else this.handlers.onCycleMode?.()
      return { consume: true }
    }
    if (matchesKey(data, "ctrl+d") && !this.busy && this.editor.getText() === "") {
      this.handlers.onExit()
      return { consume: true }
    }
    if (matchesKey(data, "escape") && this.question.children.length === 0 && !this.editor.isShowingAutocomplete()) {
      this.editor.setText("")
      this.tui.requestRender()
      return { consume: true }
    }
    return undefined
  }
}
