// What `turnlog run` shows of a turn, as a person sees it: the view's stdout
// and stderr drawn into one headless terminal (as they share one), whose
// screen is read back as text; off a terminal, the exact bytes on stderr.
import { describe, expect, it } from "vitest"
import type { AgentLoop } from "@turnlog/agent"
import { RunView, type RunViewOptions, summary, units } from "../src/RunView.js"
import { renderer } from "../src/TerminalMarkdown.js"
import { HeadlessTerminal } from "./support/headless.js"

type Update = AgentLoop.AgentUpdate

const onTerminal = (options: Partial<RunViewOptions> = {}) => {
  const terminal = new HeadlessTerminal(80, 20)
  let pending = Promise.resolve()
  const write = (text: string) => {
    // Newlines as a terminal's line discipline turns them (onlcr).
    const data = text.replace(/\n/g, "\r\n")
    pending = pending.then(() => new Promise<void>((resolve) => terminal.xterm.write(data, resolve)))
  }
  const view = new RunView({ out: write, err: write, errTty: true, color: true, route: "loop/m", frameMs: 60_000, ...options })
  const screen = async () => {
    await pending
    return terminal.text()
  }
  return { terminal, view, screen }
}

const offTerminal = (options: Partial<RunViewOptions> = {}) => {
  const written = { out: "", err: "" }
  const view = new RunView({
    out: (t) => (written.out += t),
    err: (t) => (written.err += t),
    errTty: false,
    color: true,
    route: "loop/m",
    ...options,
  })
  return { view, written }
}

const apply = (view: RunView, ...updates: ReadonlyArray<Update>) => {
  for (const update of updates) view.apply(update)
}

describe("turnlog run's view of a turn", () => {
  it("sets reasoning apart from the answer on a terminal, dim", async () => {
    const { terminal, view, screen } = onTerminal()
    apply(
      view,
      { type: "turn-start" },
      { type: "reasoning-delta", text: "I should list the files." },
      { type: "text-delta", text: "Let me look." },
    )
    view.close()
    expect(await screen()).toBe("I should list the files.\nLet me look.")
    const buffer = terminal.xterm.buffer.active
    expect(buffer.getLine(0)?.getCell(0)?.isDim() !== 0).toBe(true)
    expect(buffer.getLine(1)?.getCell(0)?.isDim() !== 0).toBe(false)
  })

  it("labels reasoning and ends its line when stderr is not a terminal, and never dims it", () => {
    const { view, written } = offTerminal()
    apply(
      view,
      { type: "turn-start" },
      { type: "reasoning-delta", text: "I should list " },
      { type: "reasoning-delta", text: "the files." },
      { type: "text-delta", text: "Let me look." },
    )
    view.close()
    expect(written.err).toBe("reasoning: I should list the files.\n")
    expect(written.out).toBe("Let me look.\n")
  })

  it("labels reasoning under NO_COLOR on a terminal", async () => {
    const { view, screen } = onTerminal({ color: false })
    apply(view, { type: "reasoning-delta", text: "Thinking." }, { type: "text-delta", text: "Done." })
    view.close()
    expect(await screen()).toBe("reasoning: Thinking.\nDone.")
  })

  it("spins while waiting for the first token on a terminal, and clears it when the answer comes", async () => {
    const { view, screen } = onTerminal()
    view.apply({ type: "turn-start" })
    expect(await screen()).toBe("⠋ waiting for loop/m…")
    view.apply({ type: "text-delta", text: "Hello." })
    expect(await screen()).toBe("Hello.")
    view.close()
  })

  it("waits again for the model once every tool call has its result", async () => {
    const { view, screen } = onTerminal()
    apply(
      view,
      { type: "turn-start" },
      { type: "tool-call", callId: "c1", name: "list_files", arguments: "{}" },
      { type: "tool-call", callId: "c2", name: "read_file", arguments: "{}" },
      { type: "tool-result", callId: "c1", name: "list_files", content: "a\nb/\nc", isError: false },
    )
    expect(await screen()).not.toContain("waiting")
    view.apply({ type: "tool-result", callId: "c2", name: "read_file", content: "one\ntwo\n", isError: false })
    expect((await screen()).split("\n").at(-1)).toBe("⠋ waiting for loop/m…")
    view.apply({ type: "text-delta", text: "Three files." })
    view.close()
    expect(await screen()).toBe([
      "turnlog: tool list_files",
      "turnlog: tool read_file",
      "turnlog: tool list_files done: 3 entries",
      "turnlog: tool read_file done: 2 lines",
      "Three files.",
    ].join("\n"))
  })

  it("says a retry on its own line and waits again", async () => {
    const { view, screen } = onTerminal()
    apply(
      view,
      { type: "turn-start" },
      { type: "retry", attempt: 2, delayMs: 500, failure: { code: "SERVER", message: "the provider is overloaded" } },
    )
    expect(await screen()).toBe("turnlog: the provider is overloaded (SERVER); retry 2 in 500 ms\n⠋ waiting for loop/m…")
    view.apply({ type: "text-delta", text: "Hi." })
    view.close()
    expect(await screen()).toBe("turnlog: the provider is overloaded (SERVER); retry 2 in 500 ms\nHi.")
  })

  it("writes nothing on stderr while waiting when stderr is not a terminal", () => {
    const { view, written } = offTerminal()
    view.apply({ type: "turn-start" })
    expect(written.err).toBe("")
  })

  it("shows an edit's diff under its result", async () => {
    const { view, screen } = onTerminal()
    const content = "edited a.ts: 1 replacement\n--- a/a.ts\n+++ b/a.ts\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n"
    apply(
      view,
      { type: "tool-call", callId: "c1", name: "edit_file", arguments: "{}" },
      { type: "tool-result", callId: "c1", name: "edit_file", content, isError: false },
    )
    view.close()
    expect(await screen()).toBe([
      "turnlog: tool edit_file",
      "turnlog: tool edit_file done: edited a.ts: 1 replacement",
      "  --- a/a.ts",
      "  +++ b/a.ts",
      "  @@ -1,2 +1,2 @@",
      "   keep",
      "  -old",
      "  +new",
    ].join("\n"))
  })

  it("ends the turn with tokens, the share of the window, the time and the cost", () => {
    let now = 1_000
    const { view, written } = offTerminal({
      errTty: true,
      now: () => now,
      model: { contextWindow: 200_000, maxTokens: 8_000, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
    })
    apply(
      view,
      { type: "usage", usage: { inputTokens: 1_000, outputTokens: 100 } },
      { type: "usage", usage: { inputTokens: 200, cacheReadTokens: 10_000, outputTokens: 200 } },
    )
    now = 3_500
    view.apply({ type: "turn-end", reason: "completed" })
    // 11.2k in (cache reads are input), 5% of the window by the last request (10,200 + 200), $0.0111.
    expect(written.err).toBe("turnlog: 11.2k in, 300 out · 5% of 200k context · 2.5 s · $0.0111\n")
  })

  it("ends the turn without that line when stderr is not a terminal", () => {
    const { view, written } = offTerminal({ model: { contextWindow: 1000, maxTokens: 100 } })
    apply(view, { type: "usage", usage: { inputTokens: 12, outputTokens: 3 } }, { type: "turn-end", reason: "completed" })
    expect(written.err).toBe("")
  })

  it("leaves out what the model's entry does not know", () => {
    const { view, written } = offTerminal({
      errTty: true,
      now: () => 0,
      model: { contextWindow: 0, maxTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } },
    })
    apply(view, { type: "usage", usage: { inputTokens: 12, outputTokens: 3 } }, { type: "turn-end", reason: "completed" })
    expect(written.err).toBe("turnlog: 12 in, 3 out · 0.0 s\n")
  })

  it("sums tool results up with their full counts", () => {
    expect(summary("list_files", "a\nb/\n[1200 more entries]")).toBe("1202 entries")
    expect(summary("list_files", "")).toBe("0 entries")
    expect(summary("list_files", "only")).toBe("1 entry")
    expect(summary("read_file", "x\n[file truncated: 10 more bytes]")).toBe("1 line (truncated)")
    expect(summary("run_command", "exit 0\nline\nline")).toBe("exit 0 (3 lines)")
  })
})

describe("turnlog run's answer as markdown on a terminal", () => {
  const markdown = renderer(true, () => 60)

  it("draws headings, emphasis, lists, tables and code blocks a block at a time", async () => {
    const { view, screen } = onTerminal({ markdown })
    view.apply({ type: "turn-start" })
    apply(view, { type: "text-delta", text: "# Files\n\nThere are **two**" })
    // Complete lines are drawn; the line under way is not yet.
    expect(await screen()).toBe("Files")
    apply(
      view,
      { type: "text-delta", text: " files:\n\n- `a.ts`\n- b.ts\n\n| name | size |\n|---|---|\n| a.ts | 3 |\n\n" },
      { type: "text-delta", text: "```ts\nconst x = 1\n\nconst y = 2\n```\n" },
    )
    view.close()
    expect(await screen()).toBe([
      "Files",
      "",
      "There are two files:",
      "",
      "- a.ts",
      "- b.ts",
      "",
      "┌──────┬──────┐",
      "│ name │ size │",
      "├──────┼──────┤",
      "│ a.ts │ 3    │",
      "└──────┴──────┘",
      "",
      "```ts",
      "  const x = 1",
      "",
      "  const y = 2",
      "```",
    ].join("\n"))
  })

  it("colours a code block's keywords, strings, comments and numbers apart, its text unchanged", async () => {
    const { terminal, view, screen } = onTerminal({ markdown })
    view.apply({ type: "turn-start" })
    apply(view, { type: "text-delta", text: '```ts\nconst name = "turn" // why\nreturn 42\n```\n' })
    view.close()
    expect(await screen()).toBe(["```ts", '  const name = "turn" // why', "  return 42", "```"].join("\n"))
    const line = (row: number) => terminal.xterm.buffer.active.getLine(row)!
    const fg = (row: number, column: number) => {
      const cell = line(row).getCell(column)!
      return { palette: Boolean(cell.isFgPalette()), color: cell.getFgColor(), char: cell.getChars() }
    }
    const keyword = fg(1, 2)
    const plain = fg(1, 8)
    const string = fg(1, 15)
    const comment = fg(1, 23)
    const number = fg(2, 9)
    expect([keyword.char, plain.char, string.char, comment.char, number.char]).toEqual(["c", "n", '"', "/", "4"])
    expect(keyword.palette && string.palette && comment.palette && number.palette).toBe(true)
    expect(plain.palette).toBe(false)
    expect(new Set([keyword.color, string.color, comment.color, number.color]).size).toBe(4)
    expect({ ...fg(2, 2), char: "c" }).toEqual(keyword)
  })

  it("leaves a code block in a language it does not know, and any block without colour, uncoloured", async () => {
    for (const [fence, color] of [["```cobol", true], ["```ts", false]] as const) {
      const { terminal, view, screen } = onTerminal({ markdown: renderer(color, () => 60), color })
      view.apply({ type: "turn-start" })
      apply(view, { type: "text-delta", text: `${fence}\nconst x = "y"\n\`\`\`\n` })
      view.close()
      expect(await screen()).toBe([fence, '  const x = "y"', "```"].join("\n"))
      const cells = [2, 12].map((column) => terminal.xterm.buffer.active.getLine(1)!.getCell(column)!.isFgPalette() ? 1 : 0)
      expect(cells).toEqual([0, 0])
    }
  })

  it("keeps the answer's text as it is without a renderer (stdout piped)", () => {
    const { view, written } = offTerminal()
    apply(view, { type: "text-delta", text: "# Files\n\n- **a**\n" })
    view.close()
    expect(written.out).toBe("# Files\n\n- **a**\n")
  })

  it("draws a paragraph a line at a time, and holds a code fence and a table until they end", () => {
    expect(units("# A\n\nline 0\nline 1\nline")).toEqual({ units: ["# A\n", "\n", "line 0\n", "line 1\n"], rest: "line" })
    expect(units("```\nx\n\ny")).toEqual({ units: [], rest: "```\nx\n\ny" })
    expect(units("```\nx\n\n```\nz\n")).toEqual({ units: ["```\nx\n\n```\n", "z\n"], rest: "" })
    expect(units("| a |\n|---|\n| 1 |\n")).toEqual({ units: [], rest: "| a |\n|---|\n| 1 |\n" })
    expect(units("| a |\n|---|\n| 1 |\n\n")).toEqual({ units: ["| a |\n|---|\n| 1 |\n", "\n"], rest: "" })
    expect(units("| a |\n| 1 |", true)).toEqual({ units: ["| a |\n| 1 |"], rest: "" })
  })
})
