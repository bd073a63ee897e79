/**
 * An answer's markdown drawn for a terminal (headings, emphasis, lists,
 * tables, code blocks), with the interactive session's markdown component and
 * theme; without colour, the same layout in plain text. Loaded only when
 * stdout is a terminal: piped, the answer stays the model's raw text.
 */
import { Markdown, type MarkdownTheme } from "@mariozechner/pi-tui"
import * as Style from "./chat/Style.js"

const same = (text: string): string => text

const plain: MarkdownTheme = {
  heading: same,
  link: same,
  linkUrl: same,
  code: same,
  codeBlock: same,
  codeBlockBorder: same,
  quote: same,
  quoteBorder: same,
  hr: same,
  listBullet: same,
  bold: same,
  italic: same,
  strikethrough: same,
  underline: same,
}

/** Renders complete markdown blocks to lines for a terminal `width()` columns wide. */
export const renderer = (color: boolean, width: () => number) => (text: string): string =>
  new Markdown(text, 0, 0, color ? Style.markdown : plain).render(Math.max(20, width())).map((l) => l.trimEnd()).join("\n")
