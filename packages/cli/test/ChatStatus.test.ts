// What the interactive session says besides the answer, as a person sees it
// in a headless terminal: the diff under an edit's status line, the footer's
// cost, a compaction while it happens, the models /model offers, and
// /export's page.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { ENTER, open, stop, text, toolCall } from "./support/chat.js"

describe("the interactive session's status lines", () => {
  it("an edit_file call shows the diff of the edit under its done line, added lines green and removed red", async () => {
    const s = await open(
      [
        toolCall("c1", "edit_file", JSON.stringify({ path: "a.txt", old_text: "two", new_text: "2" })),
        [...text("Edited."), stop],
      ],
      {},
      { files: { "a.txt": "one\ntwo\nthree\n" } },
    )
    s.send("edit it")
    await s.terminal.until((t) => t.includes("Reject"), "the permission question")
    s.terminal.type(ENTER)
    const screen = await s.terminal.until((t) => t.includes("Edited."), "the answer after the edit")
    expect(screen).toContain(
      [
        " ✓ Edit a.txt done: edited a.txt: 1 replacement",
        "   --- a/a.txt",
        "   +++ b/a.txt",
        "   @@ -1,3 +1,3 @@",
        "    one",
        "   -two",
        "   +2",
        "    three",
        " Edited.",
      ].join("\n"),
    )
    const rows = screen.split("\n")
    const colour = (row: string) => s.terminal.xterm.buffer.active.getLine(rows.indexOf(row))!.getCell(3)!.getFgColor()
    expect([colour("   -two"), colour("   +2"), colour("    one")]).toEqual([1, 2, -1]) // red, green, the default
    await s.quit()
  })

  it("a write_file call shows the lines it wrote as added", async () => {
    const s = await open([
      toolCall("c1", "write_file", JSON.stringify({ path: "notes.md", content: "first line\nsecond line\n" })),
      [...text("Written."), stop],
    ])
    s.send("write the notes")
    await s.terminal.until((t) => t.includes("Reject"), "the permission question")
    s.terminal.type(ENTER)
    const screen = await s.terminal.until((t) => t.includes("Written."), "the answer after the write")
    expect(screen).toContain(
      " ✓ Write notes.md done: wrote 23 bytes to notes.md\n   +first line\n   +second line\n Written.",
    )
    await s.quit()
  })
})

describe("the interactive session's footer", () => {
  it("shows the model, the tokens, the share of the context and the session's cost where the model has prices", async () => {
    const usage = (inputTokens: number, outputTokens: number) => ({ type: "usage", usage: { inputTokens, outputTokens } } as const)
    const s = await open([
      [...text("First."), usage(1200, 34), stop],
      [...text("Second."), usage(2500, 100), stop],
    ], {
      modelInfo: {
        contextWindow: 10_000,
        maxTokens: 1000,
        cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      },
    })
    s.send("one")
    const first = await s.terminal.until((t) => t.includes("↑1200 ↓34 tokens"), "the first answer's tokens")
    // 1200 × $3 + 34 × $15 per million tokens.
    expect(first.split("\n").at(-1)).toBe(" scripted/test-model · ↑1200 ↓34 tokens · 12% of context · $0.0041 · /help fo...")
    s.send("two")
    const second = await s.terminal.until((t) => t.includes("↑2500 ↓100 tokens"), "the second answer's tokens")
    // Both answers: $0.0041 + 2500 × $3 + 100 × $15 per million.
    expect(second.split("\n").at(-1)).toBe(" scripted/test-model · ↑2500 ↓100 tokens · 26% of context · $0.0131 · /help f...")
    await s.quit()
  })
})

describe("a compaction in the interactive session", () => {
  it("is a status line while the summary is asked for, then says what it came to, and the turn goes on", async () => {
    // About 1,600 tokens each (four characters to a token): the third request would not leave a 4,000-token window its reserve.
    const long = (label: string) => Array.from({ length: 400 }, (_, i) => `${label}${i}`.padEnd(15, "x")).join(" ")
    const s = await open(
      [
        [...text(long("a")), stop],
        [...text(long("b")), stop],
        { chunks: [...text("The user asked ", "for two long answers."), stop], delayMs: 20 },
        [...text("Third answer."), stop],
      ],
      { modelInfo: { contextWindow: 4000, maxTokens: 500 } },
      { rows: 20 },
    )
    s.send("first")
    await s.terminal.until((t) => t.includes("a399"), "the first answer")
    s.send("second")
    await s.terminal.until((t) => t.includes("b399"), "the second answer")
    s.send("third")
    const during = await s.terminal.until((t) => t.includes("compacting"), "the compaction under way")
    expect(during).toContain(" › third\n compacting: summarising the older history to make room…")
    const after = await s.terminal.until((t) => t.includes("Third answer."), "the third answer")
    expect(after).toMatch(/ › third\n older history summarised \(\d+ → \d+ tokens\)\n Third answer\./)
    expect(after).not.toContain("compacting:")
    const id = await s.quit()
    const compaction = (await s.events(id)).find((e) => e.type === "context/compaction")!
    const { tokensBefore, tokensAfter } = compaction.data as { tokensBefore: number; tokensAfter: number }
    expect(after).toContain(` older history summarised (${tokensBefore} → ${tokensAfter} tokens)\n`)
  })
})

describe("/compact in the interactive session", () => {
  it("shows the same status line as the loop's compaction while the summary is asked for, then what it came to", async () => {
    const long = (label: string) => Array.from({ length: 400 }, (_, i) => `${label}${i}`.padEnd(15, "x")).join(" ")
    const s = await open(
      [
        [...text(long("a")), stop],
        [...text(long("b")), stop],
        { chunks: [...text("The user asked ", "for two long answers."), stop], delayMs: 20 },
      ],
      { modelInfo: { contextWindow: 8000, maxTokens: 500 } },
      { rows: 20 },
    )
    s.send("first")
    await s.terminal.until((t) => t.includes("a399"), "the first answer")
    s.send("second")
    await s.terminal.until((t) => t.includes("b399"), "the second answer")
    s.send("/compact")
    const during = await s.terminal.until((t) => t.includes("compacting"), "the compaction under way")
    expect(during).toContain(" › /compact\n compacting: summarising the older history to make room…")
    const after = await s.terminal.until((t) => t.includes("older history summarised"), "the compaction's outcome")
    expect(after).not.toContain("compacting:")
    const id = await s.quit()
    const compaction = (await s.events(id)).find((e) => e.type === "context/compaction")!
    const { tokensBefore, tokensAfter } = compaction.data as { tokensBefore: number; tokensAfter: number }
    expect(after).toContain(` › /compact\n older history summarised (${tokensBefore} → ${tokensAfter} tokens)\n`)
  })

  it("says in the same line when there is nothing to compact", async () => {
    const s = await open([[...text("Short."), stop]], { modelInfo: { contextWindow: 8000, maxTokens: 500 } })
    s.send("one")
    await s.terminal.until((t) => t.includes("Short."), "the answer")
    s.send("/compact")
    const said = await s.terminal.until((t) => t.includes("nothing to compact"), "the outcome")
    expect(said).toMatch(/ › \/compact\n nothing to compact: all \d+ tokens of history are recent\n/)
    expect(said).not.toContain("compacting:")
    await s.quit()
  })

  it("leaves no status line when the compaction fails, only why", async () => {
    const s = await open([[...text("Short."), stop]])
    s.send("one")
    await s.terminal.until((t) => t.includes("Short."), "the answer")
    s.send("/compact")
    const said = await s.terminal.until((t) => t.includes("declares no context window"), "the failure")
    expect(said).toContain(" › /compact\n scripted/test-model declares no context window, so its sessions are not\n compacted\n")
    expect(said).not.toContain("compacting:")
    await s.quit()
  })
})

describe("/export in the interactive session", () => {
  it("writes the session's HTML page to turnlog-<id>.html here, or to the file named, and says where", async () => {
    const s = await open([[...text("The answer is **forty-two**."), stop]])
    s.send("what is the answer?")
    await s.terminal.until((t) => t.includes("forty-two"), "the answer")
    s.send("/export")
    const said = await s.terminal.until((t) => t.includes("exported to"), "the export's status line")
    const id = /turnlog-(\d{8}T\S+)\.html/.exec(said)![1]!
    const page = join(s.cwd, `turnlog-${id}.html`)
    expect(said).toContain(` › /export\n exported to ${page}\n`)
    const html = readFileSync(page, "utf8")
    expect(html).toMatch(/^<!doctype html>/i)
    expect(html).toContain("<strong>forty-two</strong>")
    expect(html).toContain("what is the answer?")
    s.send("/export pages/out.html")
    const refused = await s.terminal.until((t) => t.includes("cannot write"), "the refusal")
    expect(refused).toContain(` cannot write ${join(s.cwd, "pages/out.html")}: ENOENT`)
    s.send("/export out.html")
    await s.terminal.until((t) => t.includes(`exported to ${join(s.cwd, "out.html")}`), "the second export")
    expect(readFileSync(join(s.cwd, "out.html"), "utf8")).toBe(html)
    expect(await s.quit()).toBe(id)
  })
})

describe("/model in the interactive session", () => {
  it("alone lists the models turnlog models prints, and the one picked is said and used from the next turn on", async () => {
    const s = await open([[...text("From the third."), stop]], {}, {
      models: ["scripted/test-model", "scripted/other", "scripted/third"],
    })
    s.send("/model")
    const list = await s.terminal.until((t) => t.includes("scripted/third"), "the list of models")
    expect(list).toMatch(
      / › \/model\n\n Switch from scripted\/test-model to which model\?\n→ scripted\/test-model +in use\n +scripted\/other\n +scripted\/third\n/,
    )
    s.terminal.type("\x1b[B") // down
    s.terminal.type("\x1b[B")
    s.terminal.type(ENTER)
    const said = await s.terminal.until((t) => t.includes("from the next turn on"), "the switch")
    expect(said).toContain(" model: scripted/test-model → scripted/third from the next turn on")
    expect(said.split("\n").at(-1)).toMatch(/^ scripted\/third · \/help for commands/)
    s.send("hello")
    await s.terminal.until((t) => t.includes("From the third."), "the answer")
    const id = await s.quit()
    const requests = (await s.events(id)).filter((e) => e.type === "request/start").map((e) => e.data)
    expect(requests).toEqual([{ provider: "scripted", model: "third", step: 1, attempt: 1 }])
  })
})
