/**
 * Blocks of text the interactive session's view lays out itself, where pi-tui's
 * `Text` (which wraps every line alike) would not do: two columns with a
 * hanging indent, table rows cut at the edge, and a line that never wraps.
 */
import { truncateToWidth, visibleWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui"

/**
 * Rows of a name and what it does: the names in a column as wide as the
 * widest, each description wrapped beside its name, its later lines indented
 * to the same column (a narrow terminal puts the description under the name).
 */
export class Columns {
  constructor(private readonly rows: ReadonlyArray<readonly [string, string]>) {}
  invalidate(): void {}
  render(width: number): Array<string> {
    const left = Math.max(0, ...this.rows.map(([name]) => visibleWidth(name))) + 3
    const room = width - 1 - left
    return this.rows.flatMap(([name, text]) => {
      if (room < 20) return [` ${name}`, ...wrapTextWithAnsi(text, Math.max(1, width - 5)).map((line) => `     ${line}`)]
      const [first = "", ...more] = wrapTextWithAnsi(text, room)
      return [` ${name.padEnd(left)}${first}`, ...more.map((line) => ` ${" ".repeat(left)}${line}`)]
    })
  }
}

/** Rows of a table, each cut to the width rather than wrapped, so its columns stay columns. */
export class Rows {
  constructor(private readonly lines: ReadonlyArray<string>) {}
  invalidate(): void {}
  render(width: number): Array<string> {
    return this.lines.map((line) => truncateToWidth(` ${line}`, width))
  }
}

/** One line, cut to the width (the footer never wraps). */
export class Line {
  private text = ""
  setText(text: string): void {
    this.text = text
  }
  invalidate(): void {}
  render(width: number): Array<string> {
    return [truncateToWidth(` ${this.text}`, width)]
  }
}
