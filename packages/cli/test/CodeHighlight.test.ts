// A code block's tokens as the highlighter sees them, each kind marked by a
// palette of brackets: where comments and strings start and end (across
// lines too), keywords by language, and text never changed.
import { describe, expect, it } from "vitest"
import * as CodeHighlight from "../src/CodeHighlight.js"

const marks: CodeHighlight.Palette = {
  keyword: (t) => `<k:${t}>`,
  string: (t) => `<s:${t}>`,
  comment: (t) => `<c:${t}>`,
  number: (t) => `<n:${t}>`,
  name: (t) => `<v:${t}>`,
}

describe("a code block's colours", () => {
  it.each([
    ["ts", "const n = 1_000 // one\nif (x) return `a${b}`", ["<k:const> n = <n:1_000> <c:// one>", "<k:if> (x) <k:return> <s:`a${b}`>"]],
    ["ts", "/* a\nb */ let", ["<c:/* a>", "<c:b */> <k:let>"]],
    ["json", '{"a": [1.5, true, "x"]}', ['{<v:"a">: [<n:1.5>, <k:true>, <s:"x">]}']],
    ["sh", 'for f in *.md; do echo "$f" # each\ndone', ['<k:for> f <k:in> *.md; <k:do> echo <s:"$f"> <c:# each>', "<k:done>"]],
    ["bash", "echo a#b $HOME", ["echo a#b <v:$HOME>"]],
    ["python", 'def f():\n    """doc\n    more"""\n    return None', ["<k:def> f():", '    <s:"""doc>', '<s:    more""">', "    <k:return> <k:None>"]],
    ["py", "print(f'{x}')", ["print(<s:f'{x}'>)"]],
  ])("%s: %j", (lang, code, lines) => {
    expect(CodeHighlight.highlight(code, lang, marks)).toEqual(lines)
  })

  it("leaves a language it does not know, or none, as it is", () => {
    expect(CodeHighlight.highlight("const x = 1", "cobol", marks)).toEqual(["const x = 1"])
    expect(CodeHighlight.highlight("const x = 1", undefined, marks)).toEqual(["const x = 1"])
  })
})
