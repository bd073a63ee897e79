/**
 * A terminal for the interactive session's view, in process: what the view
 * writes goes into an `@xterm/headless` terminal, whose screen the test reads
 * as lines of text, and the test types into it as a person would (the bytes a
 * terminal sends for each key).
 */
import type { Terminal } from "@mariozechner/pi-tui"
import xterm from "@xterm/headless"

export class HeadlessTerminal implements Terminal {
  readonly xterm: xterm.Terminal
  private onInput: (data: string) => void = () => {}
  private readonly waiters = new Set<() => void>()

  constructor(readonly columns = 80, readonly rows = 24) {
    this.xterm = new xterm.Terminal({ cols: columns, rows, allowProposedApi: true, scrollback: 1000 })
    this.xterm.onWriteParsed(() => {
      for (const check of [...this.waiters]) check()
    })
  }

  get kittyProtocolActive(): boolean {
    return false
  }

  start(onInput: (data: string) => void): void {
    this.onInput = onInput
  }
  stop(): void {}
  drainInput(): Promise<void> {
    return Promise.resolve()
  }
  write(data: string): void {
    this.xterm.write(data)
  }
  moveBy(lines: number): void {
    if (lines > 0) this.write(`\x1b[${lines}B`)
    if (lines < 0) this.write(`\x1b[${-lines}A`)
  }
  hideCursor(): void {
    this.write("\x1b[?25l")
  }
  showCursor(): void {
    this.write("\x1b[?25h")
  }
  clearLine(): void {
    this.write("\x1b[K")
  }
  clearFromCursor(): void {
    this.write("\x1b[J")
  }
  clearScreen(): void {
    this.write("\x1b[2J\x1b[H")
  }
  setTitle(): void {}
  setProgress(): void {}

  /** Types `data` (one key's bytes, or text). */
  type(data: string): void {
    this.onInput(data)
  }

  /** The screen and the scrollback above it, one string per row, trailing blanks cut. */
  lines(): Array<string> {
    const buffer = this.xterm.buffer.active
    const lines: Array<string> = []
    for (let i = 0; i < buffer.length; i++) lines.push((buffer.getLine(i)?.translateToString(true) ?? "").trimEnd())
    while (lines.length > 0 && lines.at(-1) === "") lines.pop()
    return lines
  }

  text(): string {
    return this.lines().join("\n")
  }

  /** Resolves once the screen satisfies `check` (looked at after every write the terminal parses). */
  until(check: (text: string) => boolean, what: string, timeoutMs = 10_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const look = () => {
        const text = this.text()
        if (!check(text)) return
        this.waiters.delete(look)
        clearTimeout(timer)
        resolve(text)
      }
      const timer = setTimeout(() => {
        this.waiters.delete(look)
        reject(new Error(`the screen never showed ${what}; it shows:\n${this.text()}`))
      }, timeoutMs)
      this.waiters.add(look)
      look()
    })
  }
}
