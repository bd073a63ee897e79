/**
 * Text from a session as HTML that is only ever text: `escape` for plain
 * text, `markdown` for what a model or a user wrote in markdown. Markup that a
 * session holds is shown, never obeyed: raw HTML in markdown is escaped like
 * any text, images are shown as their address (a page that loads nothing
 * from the network), and a link keeps its target only when it is http(s) or
 * mailto. Code blocks get a small highlighting of strings, comments, numbers
 * and keywords, each piece escaped.
 */
import { Marked, type Tokens } from "marked"

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

/** Text as HTML text (also safe inside a quoted attribute). */
export const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!)

const SAFE_LINK = /^(https?:|mailto:)/i

// A word of some language's vocabulary: enough to make code readable, not a grammar.
const KEYWORDS = new Set(
  ("async await break case catch class const continue def default do elif else enum export extends false fn for from func " +
    "function go if impl import in interface let match mod new nil none null package pub return self static struct super " +
    "switch this throw true try type typeof undefined use var void while with yield").split(" "),
)

// Comments (line and block), strings (three quote kinds), numbers, words.
const TOKEN =
  /(\/\/[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\/)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)|(\b\d[\d_.]*(?:e[+-]?\d+)?\b)|([A-Za-z_$][\w$]*)/g

/** `code` with spans for comments, strings, numbers and keywords; `#` starts a comment only where the language uses it. */
export const highlight = (code: string, lang: string): string => {
  const hashComments = /^(py|python|sh|bash|shell|zsh|rb|ruby|yaml|yml|toml|r|perl|pl|makefile|dockerfile)$/i.test(lang)
  let out = ""
  let last = 0
  for (const match of code.matchAll(TOKEN)) {
    const [text, comment, string, number, word] = match
    const at = match.index
    if (comment !== undefined && comment.startsWith("#") && !hashComments) continue
    const cls = comment !== undefined
      ? "c"
      : string !== undefined
      ? "s"
      : number !== undefined
      ? "n"
      : word !== undefined && KEYWORDS.has(word)
      ? "k"
      : undefined
    if (cls === undefined) continue
    out += `${escape(code.slice(last, at))}<span class="hl-${cls}">${escape(text)}</span>`
    last = at + text.length
  }
  return out + escape(code.slice(last))
}

const marked = new Marked({ gfm: true, async: false })
marked.use({
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag) {
      return escape(token.text)
    },
    image(token: Tokens.Image) {
      return `<span class="md-image">[image: ${escape(token.text)}] (${escape(token.href)})</span>`
    },
    link(token: Tokens.Link) {
      const label = this.parser.parseInline(token.tokens)
      return SAFE_LINK.test(token.href)
        ? `<a href="${escape(token.href)}" rel="noopener noreferrer" target="_blank">${label}</a>`
        : `${label} (${escape(token.href)})`
    },
    code(token: Tokens.Code) {
      const lang = /^[\w+#.-]{1,32}$/.test(token.lang ?? "") ? token.lang! : ""
      const label = lang === "" ? "" : `<span class="lang">${escape(lang)}</span>`
      return `<pre class="code">${label}<code>${highlight(token.text, lang)}</code></pre>\n`
    },
  },
})

/** Markdown as HTML in which nothing from the text is markup of its own. */
export const markdown = (text: string): string => {
  try {
    return marked.parse(text) as string
  } catch {
    // A text the parser cannot take is still shown, as it is.
    return `<pre class="plain">${escape(text)}</pre>`
  }
}
