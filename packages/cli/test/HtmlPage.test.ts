// `export --html` renders the transcript `show` builds, as a page in which
// nothing from the session is markup, written turn by turn as the log is read.
import { describe, expect, it } from "vitest"
import { SessionFacts } from "../src/html/Facts.js"
import { head, HtmlPage } from "../src/html/HtmlPage.js"
import { itemHtml } from "../src/html/HtmlTurn.js"
import { escape, markdown } from "../src/html/Markdown.js"
import { CSP } from "../src/html/PageAssets.js"
import * as Fixture from "./support/htmlSession.js"

const render = () => {
  const events = Fixture.events()
  const facts = new SessionFacts()
  for (const event of events) facts.add(event)
  const page = new HtmlPage(Fixture.header(), facts.keptFrom)
  return head({ header: Fixture.header(), facts, store: "jsonl", version: "0.1.0" }) + page.add(events) + page.finish({})
}

const section = (html: string, n: number) => html.slice(html.indexOf(`id="turn-${n}"`), html.indexOf("</section>", html.indexOf(`id="turn-${n}"`)))

describe("export --html", () => {
  const html = render()

  it("lets no markup from the session in: the page's own script is the only one, and there is no image", () => {
    expect(html.match(/<script/g)).toHaveLength(1)
    expect(html).not.toMatch(/<img/)
    expect(html).not.toContain("<b>hello")
    expect(html).not.toContain("<b>bold")
    expect(html).not.toContain('href="javascript:')
    expect(html).toContain("a link (javascript:window.__pwned=3)")
    expect(html).toContain("Here: &lt;script&gt;window.__pwned = 1&lt;/script&gt; and &lt;img src=x onerror=&quot;window.__pwned = 2&quot;&gt;")
    expect(html).toContain('<span class="md-image">[image: tracker] (http://127.0.0.1:9/track.png)</span>')
    expect(html).toContain("<code>/work/&lt;script&gt;window.__pwned=7&lt;/script&gt;</code>")
    expect(html).toContain("Say &lt;b&gt;hello&lt;/b&gt; &lt;script&gt;window.__pwned = 4&lt;/script&gt;")
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${CSP}">`)
    expect(CSP).toMatch(
      /^default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-[A-Za-z0-9+/]{43}='; base-uri 'none'; form-action 'none'$/,
    )
  })

  it("gives the session's facts in the header", () => {
    const facts = html.slice(html.indexOf("<dl>"), html.indexOf("</dl>"))
    expect(facts).toBe(
      "<dl><dt>session</dt><dd><code>20260101T100000-0a1b2c3d</code></dd>" +
        "<dt>directory</dt><dd><code>/work/&lt;script&gt;window.__pwned=7&lt;/script&gt;</code></dd>" +
        "<dt>created</dt><dd>2026-01-01T10:00:00.000Z</dd><dt>updated</dt><dd>2026-01-01T10:00:29.000Z</dd>" +
        "<dt>models</dt><dd><code>anthropic/claude-sonnet-4-5</code></dd><dt>turns</dt><dd>4</dd>" +
        "<dt>tokens</dt><dd>500 in / 100 out (as the providers reported them; cost not recorded)</dd>" +
        "<dt>store</dt><dd>jsonl, log version 2, 30 events</dd>" +
        "<dt>keys</dt><dd><kbd>j</kbd>/<kbd>k</kbd> next/previous turn, <kbd>/</kbd> search</dd>",
    )
    expect(html).toContain("<title>Say &lt;b&gt;hello&lt;/b&gt; &lt;script&gt;window.__pwned = 4&lt;/script&gt; · turnlog</title>")
  })

  it("writes one section per turn, tagged for the sidebar and the problem filter", () => {
    expect([...html.matchAll(/<section class="(turn[^"]*)" id="turn-(\d)" data-turn="\d" data-end="([\w-]+)"[^>]* data-badges="([^"]*)">/g)]
      .map((m) => [m[1], m[2], m[3], m[4]])).toEqual([
        ["turn problem", "1", "completed", "tool error compacted"],
        ["turn problem", "2", "max-tokens", "cut compacted"],
        ["turn problem", "3", "completed", "degraded compaction"],
        ["turn problem", "4", "completed", "refused retried"],
      ])
  })

  it("folds reasoning, and a long tool result with its size", () => {
    const one = section(html, 1)
    expect(one).toContain(
      '<details class="reasoning"><summary>thinking · 69 bytes, 1 line</summary><div class="md"><p>The user wants &lt;b&gt;bold&lt;/b&gt;; think &lt;script&gt;window.__pwned = 5&lt;/script&gt;</p>\n</div></details>',
    )
    expect(one).toContain('<details class="fold"><summary>result folded: 6.0 KB, 300 lines</summary><pre class="out">line 1 of the file\n')
    expect(one).toContain(
      '<div class="item tool tool-result error"><div class="who">tool result <code>call_x</code> <span class="badge problem">error</span></div><pre class="out">exit code 1: &lt;script&gt;window.__pwned = 6&lt;/script&gt;</pre></div>',
    )
    expect(one).toContain('<pre class="args">{\n  &quot;path&quot;: &quot;&lt;img src=x onerror=alert(1)&gt;.txt&quot;\n}</pre>')
    expect(one).toContain('<p class="note">Compacted: the model sees this turn only through a summary.</p>')
  })

  it("marks a cut at the output limit with what was dropped and the pruned envelope", () => {
    const two = section(html, 2)
    expect(two).toContain(
      "<p>Message <code>a3</code> stopped at max tokens. Dropped, never run: <code>write_file</code>. The raw finish chunk's envelope had 2 block entries; the stored one has one per kept block.</p>",
    )
    expect(two).toContain("<details><summary>pruned envelope</summary><pre>{\n  &quot;response&quot;: {\n    &quot;kind&quot;: &quot;pi-ai&quot;,")
    expect(two).toContain(
      '<div class="end end-max-tokens">Turn 2 stopped at the output limit (max tokens); the tool call it was making (write_file) was dropped, not run',
    )
  })

  it("marks a compaction, a degraded message, a refusal and a retry where they happened", () => {
    const three = section(html, 3)
    expect(three).toContain(
      '<div class="who">compaction (between turns)</div><p>The history before event 20 was summarised by <code>anthropic/claude-sonnet-4-5</code>: about 12,000 → 800 tokens.',
    )
    expect(three).toContain(
      `<div class="who">INVALID_REPLAY_STATE</div><p>Message <code>a4</code> (anthropic/claude-sonnet-4-5) is sent as provider-neutral content: ${Fixture.LEGACY_REASON}</p>`,
    )
    const four = section(html, 4)
    expect(four).toContain(
      `<div class="who">replay/degrade</div><p>anthropic/claude-sonnet-4-5 refused the replay state of <code>a4</code> (event 27); sent provider-neutral since: ${Fixture.REFUSAL_REASON}</p>`,
    )
    expect(four).toContain('<div class="who">retry</div><p>Step 1, attempt 2 on anthropic/claude-sonnet-4-5.</p>')
  })

  it("writes each turn as soon as its events are read, holding no earlier turn", () => {
    const events = Fixture.events()
    const page = new HtmlPage(Fixture.header(), 0)
    const written = events.map((event) => page.add([event]))
    const at = (n: number) => written.findIndex((text) => text.includes(`id="turn-${n}"`))
    expect([at(1), at(2), at(3), at(4)]).toEqual([10, 16, 22, 29])
    expect(events[10]!.type).toBe("turn/end")
    expect(page.finish({})).toMatch(/^<\/main>\n<script>/)
  })

  it("gives the turn being written as far as it is, for view to replace as more arrives", () => {
    const events = Fixture.events()
    const page = new HtmlPage(Fixture.header(), 0)
    expect(page.add(events.slice(0, 11))).toContain('id="turn-1"')
    expect(page.openTurn()).toBeUndefined()
    expect(page.add(events.slice(11, 13))).toBe("")
    const open = page.openTurn()!
    expect(open.n).toBe(2)
    expect(open.html).toContain("<p>Write out.txt</p>")
    expect(open.html).toContain('<div class="end end-open">Turn 2 in progress: shown as it is written</div>')
    expect(page.add(events.slice(13, 17))).toContain('<div class="end end-max-tokens">Turn 2 stopped at the output limit')
    expect(page.openTurn()).toBeUndefined()
    expect(page.next).toBe(18)
  })

  it("shows a last turn left open, and a torn tail", () => {
    const events = Fixture.events().slice(0, 13)
    const page = new HtmlPage(Fixture.header(), 0)
    const text = page.add(events) + page.finish({ tornTail: { bytes: 17, line: 14 } })
    expect(text).toContain(
      '<div class="end end-open">Turn 2 still open: the process stopped mid-turn (it is closed as interrupted when the session is next used)</div>',
    )
    expect(text).toContain("<p>17 bytes at line 14: an unfinished write, cut off and kept aside when the session is next opened.</p>")
  })
})

describe("a tool call", () => {
  it("shows an edit's old and new text as removed and added lines, beside the arguments", () => {
    const html = itemHtml({
      role: "tool-call",
      callId: "c1",
      name: "edit_file",
      arguments: JSON.stringify({ path: "a.ts", old_string: "let a = 1\nlet b = <2>", new_string: "let a = 3" }),
    })
    expect(html.slice(html.indexOf('<pre class="diff">'))).toBe(
      '<pre class="diff"><span class="del">- let a = 1</span>\n<span class="del">- let b = &lt;2&gt;</span>\n<span class="add">+ let a = 3</span></pre></div>',
    )
  })

  it("colours the unified diff an edit's result carries; any other result stays plain text", () => {
    const content = "edited a.ts: 1 replacement\n--- a/a.ts\n+++ b/a.ts\n@@ -1,2 +1,2 @@\n-let a = 1\n+let a = <3>\n let c = 2"
    expect(itemHtml({ role: "tool-result", callId: "c1", content, isError: false })).toBe(
      '<div class="item tool tool-result"><div class="who">tool result <code>c1</code></div><pre class="out diff">edited a.ts: 1 replacement\n' +
        '<span class="head">--- a/a.ts</span>\n<span class="head">+++ b/a.ts</span>\n<span class="hunk">@@ -1,2 +1,2 @@</span>\n' +
        '<span class="del">-let a = 1</span>\n<span class="add">+let a = &lt;3&gt;</span>\n let c = 2</pre></div>',
    )
    const plain = "- one\n+ two"
    expect(itemHtml({ role: "tool-result", callId: "c2", content: plain, isError: false })).toContain('<pre class="out">- one\n+ two</pre>')
  })
})

describe("markdown", () => {
  it("renders a model's markdown with raw HTML as text, unsafe links as text, and code highlighted", () => {
    expect(markdown('**a** <i onmouseover=x>b</i> [c](data:text/html,x) [d](https://e.org/)\n\n```js\nlet s = "<x>" // c\n```')).toBe(
      '<p><strong>a</strong> &lt;i onmouseover=x&gt;b&lt;/i&gt; c (data:text/html,x) <a href="https://e.org/" rel="noopener noreferrer" target="_blank">d</a></p>\n' +
        '<pre class="code"><span class="lang">js</span><code><span class="hl-k">let</span> s = <span class="hl-s">&quot;&lt;x&gt;&quot;</span> <span class="hl-c">// c</span></code></pre>\n',
    )
    expect(escape("<a href='x'>&</a>")).toBe("&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;")
  })
})
