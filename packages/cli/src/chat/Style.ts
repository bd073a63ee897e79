/**
 * The few styles the interactive session uses, as plain SGR sequences (each
 * closes only what it opened, so styles nest), and the markdown and list
 * themes built from them. Text from a session is made visible (see
 * `Visible`) before it is styled: only these sequences reach the terminal.
 */
import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@mariozechner/pi-tui"
import * as CodeHighlight from "../CodeHighlight.js"
import * as Color from "../Color.js"

// Looked at when a style is applied: under `NO_COLOR` (or `--no-color`) text stays plain.
const sgr = (open: number, close: number) => (text: string): string => Color.allowed() ? `\x1b[${open}m${text}\x1b[${close}m` : text

export const bold = sgr(1, 22)
export const dim = sgr(2, 22)
export const italic = sgr(3, 23)
export const underline = sgr(4, 24)
export const strike = sgr(9, 29)
export const red = sgr(31, 39)
export const green = sgr(32, 39)
export const yellow = sgr(33, 39)
export const blue = sgr(34, 39)
export const magenta = sgr(35, 39)
export const cyan = sgr(36, 39)
export const gray = sgr(90, 39)

/** A code block's colours (see `CodeHighlight`). */
export const code: CodeHighlight.Palette = { keyword: magenta, string: green, comment: gray, number: yellow, name: cyan }

export const markdown: MarkdownTheme = {
  heading: (t) => bold(cyan(t)),
  link: underline,
  linkUrl: gray,
  code: yellow,
  codeBlock: (t) => t,
  codeBlockBorder: gray,
  highlightCode: (text, lang) => CodeHighlight.highlight(text, lang, code),
  quote: italic,
  quoteBorder: gray,
  hr: gray,
  listBullet: cyan,
  bold,
  italic,
  strikethrough: strike,
  underline,
}

export const selectList: SelectListTheme = {
  selectedPrefix: cyan,
  selectedText: (t) => bold(cyan(t)),
  description: gray,
  scrollInfo: gray,
  noMatch: gray,
}

export const editor: EditorTheme = { borderColor: gray, selectList }
