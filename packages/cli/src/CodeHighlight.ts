/**
 * Syntax colours for a fenced code block drawn on a terminal: keywords,
 * strings, comments, numbers (and JSON keys, shell variables) of the
 * languages answers show most — TypeScript/JavaScript, JSON, shell and
 * Python. A small tokenizer, not a parser: it knows where a comment or a
 * string starts and ends (across lines too), which is what colour needs. A
 * block in another language, or with none, is drawn as it is. The text is
 * never changed: only colour sequences are put around parts of it.
 */

/** The colours of each kind of token (the terminal's palette). */
export interface Palette {
  readonly keyword: (text: string) => string
  readonly string: (text: string) => string
  readonly comment: (text: string) => string
  readonly number: (text: string) => string
  /** A JSON key, a shell variable. */
  readonly name: (text: string) => string
}

type Kind = keyof Palette

interface Grammar {
  /** Alternatives tried in order at each position; a group per kind, named by it. */
  readonly pattern: RegExp
  readonly keywords: ReadonlySet<string>
}

const words = (text: string): ReadonlySet<string> => new Set(text.split(" "))

const STRING_DQ = String.raw`"(?:\\[\s\S]|[^"\\\n])*"?`
const STRING_SQ = String.raw`'(?:\\[\s\S]|[^'\\\n])*'?`

const grammar = (parts: ReadonlyArray<readonly [Kind | "word", string]>, keywords: string): Grammar => ({
  pattern: new RegExp(parts.map(([kind, source]) => `(?<${kind}>${source})`).join("|"), "g"),
  keywords: words(keywords),
})

const SCRIPT = grammar(
  [
    ["comment", String.raw`\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)`],
    ["string", `${STRING_DQ}|${STRING_SQ}|` + String.raw`\x60(?:\\[\s\S]|[^\x60\\])*\x60?`],
    ["number", String.raw`\b(?:0[xXbBoO][\da-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)n?\b`],
    ["word", String.raw`[A-Za-z_$][\w$]*`],
  ],
  "abstract as async await break case catch class const continue debugger declare default delete do else enum export extends false finally for from function get if implements import in instanceof interface is keyof let namespace new null of private protected public readonly return satisfies set static super switch this throw true try type typeof undefined var void while with yield",
)

const JSON_GRAMMAR = grammar([
  ["name", STRING_DQ.replace(/\?$/, "") + String.raw`(?=\s*:)`],
  ["string", STRING_DQ],
  ["number", String.raw`-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b`],
  ["word", String.raw`[A-Za-z_]\w*`],
], "true false null")

const SHELL = grammar([
  ["comment", String.raw`(?<![^\s;|&(])#[^\n]*`],
  ["string", String.raw`"(?:\\[\s\S]|[^"\\])*"?|'[^']*'?`],
  ["name", String.raw`\$\{[^}\n]*\}?|\$[A-Za-z_]\w*|\$[0-9@#?*!$-]`],
  ["number", String.raw`\b\d+\b`],
  ["word", String.raw`[A-Za-z_][\w-]*`],
], "if then else elif fi for while until do done case esac function in return select time export local readonly declare unset break continue exit")

const PYTHON = grammar(
  [
    ["comment", String.raw`#[^\n]*`],
    ["string", String.raw`[rbfuRBFU]{0,2}(?:"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|` + `${STRING_DQ}|${STRING_SQ})`],
    ["number", String.raw`\b(?:0[xXbBoO][\da-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)j?\b`],
    ["word", String.raw`[A-Za-z_]\w*`],
  ],
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda match case nonlocal not or pass raise return try while with yield self",
)

const LANGUAGES: Readonly<Record<string, Grammar>> = {
  ts: SCRIPT,
  typescript: SCRIPT,
  tsx: SCRIPT,
  mts: SCRIPT,
  cts: SCRIPT,
  js: SCRIPT,
  javascript: SCRIPT,
  jsx: SCRIPT,
  mjs: SCRIPT,
  cjs: SCRIPT,
  json: JSON_GRAMMAR,
  jsonl: JSON_GRAMMAR,
  jsonc: SCRIPT,
  sh: SHELL,
  bash: SHELL,
  shell: SHELL,
  zsh: SHELL,
  python: PYTHON,
  py: PYTHON,
  python3: PYTHON,
}

/** `style` around each line of `text` on its own, so that every line of the block is complete in itself. */
const perLine = (text: string, style: (text: string) => string): string => text.split("\n").map((line) => (line === "" ? line : style(line))).join("\n")

/**
 * `code` as lines, coloured by `palette` when `lang` is one it knows; each
 * line opens and closes its own colours (the lines are drawn one by one).
 */
export const highlight = (code: string, lang: string | undefined, palette: Palette): Array<string> => {
  const grammar = lang === undefined ? undefined : LANGUAGES[lang.trim().split(/\s/)[0]!.toLowerCase()]
  if (grammar === undefined) return code.split("\n")
  let drawn = ""
  let from = 0
  for (const match of code.matchAll(grammar.pattern)) {
    const groups = match.groups!
    const text = match[0]
    if (text === "") continue
    drawn += code.slice(from, match.index)
    from = match.index + text.length
    const kind = (Object.keys(groups) as Array<Kind | "word">).find((k) => groups[k] !== undefined)!
    if (kind === "word") drawn += grammar.keywords.has(text) ? palette.keyword(text) : text
    else drawn += perLine(text, palette[kind])
  }
  drawn += code.slice(from)
  return drawn.split("\n")
}
