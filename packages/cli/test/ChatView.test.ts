// The interactive session as a person sees it, in process: the real view,
// session driver and permission questions over the agent loop with the
// scripted model and the memory store, drawn into a headless terminal whose
// screen is read back as text.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import * as SlashCommands from "../src/chat/SlashCommands.js"
import { CTRL_C, ENTER, open, stop, text, toolCall } from "./support/chat.js"

describe("the interactive session's view", () => {
  it("shows the prompt and the streamed answer as rendered markdown, and the footer's tokens and context share", async () => {
    const s = await open([[
      ...text("Here is **bold", "** and `code`.\n\n", "- one\n- two\n"),
      { type: "usage", usage: { inputTokens: 1200, outputTokens: 34 } },
      stop,
    ]], { modelInfo: { contextWindow: 10_000, maxTokens: 1000 } })
    s.terminal.type("hello there")
    s.terminal.type(ENTER)
    const screen = await s.terminal.until((t) => t.includes("- two"), "the answer's last item")
    expect(screen).toContain("\n › hello there\n Here is bold and code.\n\n - one\n - two")
    expect(screen).not.toContain("**")
    const footer = await s.terminal.until((t) => t.includes("↑1200 ↓34 tokens"), "the tokens in the footer")
    // One line, cut to the 80 columns.
    expect(footer.split("\n").at(-1)).toBe(" scripted/test-model · ↑1200 ↓34 tokens · 12% of context · /help for commands...")
    const id = await s.quit()
    expect((await s.events(id)).map((e) => e.type)).toEqual([
      "turn/start",
      "user/message",
      "request/start",
      "assistant/chunks",
      "assistant/message",
      "turn/end",
    ])
  })

  it("shows control characters from the model as text, never obeyed", async () => {
    const s = await open([[...text("bell\x07 and \x1b]52;c;Zm9v\x07 clipboard"), stop]])
    s.terminal.type("hi")
    s.terminal.type(ENTER)
    const screen = await s.terminal.until((t) => t.includes("clipboard"), "the answer")
    expect(screen).toContain(" bell\\x07 and \\x1b]52;c;Zm9v\\x07 clipboard")
    await s.quit()
  })

  it("asks before a write, shows what will be written, and shows the call done once allowed", async () => {
    const s = await open([
      toolCall("c1", "write_file", JSON.stringify({ path: "notes.md", content: "first line\nsecond line\n" })),
      [...text("Written."), stop],
    ])
    s.terminal.type("write the notes")
    s.terminal.type(ENTER)
    const asked = await s.terminal.until((t) => t.includes("Reject"), "the permission question")
    expect(asked).toContain(" ? Allow Write notes.md?\n   first line\n   second line\n")
    expect(asked).toMatch(/→ Allow once\n +Allow always +write_file in this session\n +Reject/)
    s.terminal.type(ENTER)
    const done = await s.terminal.until((t) => t.includes("Written."), "the answer after the tool")
    expect(done).toContain(" ✓ Write notes.md done")
    expect(done).not.toContain("Allow once")
    expect(readFileSync(join(s.cwd, "notes.md"), "utf8")).toBe("first line\nsecond line\n")
    await s.quit()
  })

  it("asks before an edit with the passage and its replacement as a diff, a long side cut so the other still shows", async () => {
    const before = Array.from({ length: 9 }, (_, i) => `old ${i + 1}`).join("\n")
    const s = await open([
      toolCall("c1", "edit_file", JSON.stringify({ path: "a.txt", old_text: before, new_text: "new 1\nnew 2" })),
      [...text("Edited."), stop],
    ])
    writeFileSync(join(s.cwd, "a.txt"), `${before}\nkept\n`)
    s.terminal.type("edit a")
    s.terminal.type(ENTER)
    const asked = await s.terminal.until((t) => t.includes("Reject"), "the permission question")
    expect(asked).toContain(
      " ? Allow Edit a.txt?\n   -old 1\n   -old 2\n   -old 3\n   -old 4\n   -old 5\n   … 4 more lines removed\n   +new 1\n   +new 2\n",
    )
    s.terminal.type(ENTER)
    const done = await s.terminal.until((t) => t.includes("Edited."), "the answer after the tool")
    expect(done).toContain(" ✓ Edit a.txt done")
    expect(readFileSync(join(s.cwd, "a.txt"), "utf8")).toBe("new 1\nnew 2\nkept\n")
    await s.quit()
  })

  it("logs allow always as a permission/rule and asks no more for that tool", async () => {
    const s = await open([
      toolCall("c1", "write_file", JSON.stringify({ path: "a.txt", content: "a" })),
      [...text("One."), stop],
      toolCall("c2", "write_file", JSON.stringify({ path: "b.txt", content: "b" })),
      [...text("Two."), stop],
    ])
    s.terminal.type("write a")
    s.terminal.type(ENTER)
    await s.terminal.until((t) => t.includes("Reject"), "the permission question")
    s.terminal.type("\x1b[B") // down: allow always
    s.terminal.type(ENTER)
    await s.terminal.until((t) => t.includes("One."), "the first answer")
    s.terminal.type("write b")
    s.terminal.type(ENTER)
    const screen = await s.terminal.until((t) => t.includes("Two."), "the second answer")
    expect(screen).toContain(" ✓ Write b.txt done")
    expect(screen.match(/Allow always/g)).toBeNull()
    const id = await s.quit()
    const rules = (await s.events(id)).filter((e) => e.type === "permission/rule").map((e) => e.data)
    expect(rules).toEqual([{ tool: "write_file", decision: "allow" }])
  })

  it("a rejected call fails with the reason the model sees", async () => {
    const s = await open([
      toolCall("c1", "run_command", JSON.stringify({ command: "rm -rf build" })),
      [...text("Understood."), stop],
    ])
    s.terminal.type("clean")
    s.terminal.type(ENTER)
    const asked = await s.terminal.until((t) => t.includes("Reject"), "the permission question")
    expect(asked).toContain(" ? Allow Run rm -rf build?\n   rm -rf build\n")
    s.terminal.type("\x1b") // Esc rejects
    const screen = await s.terminal.until((t) => t.includes("Understood."), "the answer after the rejection")
    expect(screen).toMatch(/ ✗ Run rm -rf build failed: .+/)
    await s.quit()
  })

  it("Ctrl-C during an answer cancels the turn, which ends cancelled, and the prompt comes back", async () => {
    const s = await open([
      { chunks: text("Partial answer"), stall: true },
      [...text("Second answer."), stop],
    ])
    s.terminal.type("go")
    s.terminal.type(ENTER)
    await s.terminal.until((t) => t.includes("Partial answer"), "the partial answer")
    s.terminal.type(CTRL_C)
    const cancelled = await s.terminal.until((t) => t.includes("the turn was cancelled"), "the cancel")
    expect(cancelled).toContain(" › go\n Partial answer\n the turn was cancelled")
    s.terminal.type("again")
    s.terminal.type(ENTER)
    await s.terminal.until((t) => t.includes("Second answer."), "the next answer")
    const id = await s.quit()
    const ends = (await s.events(id)).filter((e) => e.type === "turn/end").map((e) => e.data)
    expect(ends).toEqual([{ reason: "cancelled" }, { reason: "completed" }])
  })

  it("Ctrl-C twice at an empty prompt leaves; /help lists the commands, each description wrapped beside its name", async () => {
    const s = await open([])
    s.terminal.type("/help")
    s.terminal.type(ENTER)
    const help = await s.terminal.until((t) => t.includes("/sessions"), "the help")
    expect(help).toContain(" /model <provider/model>   switch the session's model")
    expect(help).toContain("Shift-Tab switches the mode (ask, auto-edit, read-only)")
    // A description too long for the line goes on under itself, not under the names.
    expect(help).toContain(
      " /compact                  summarise the session's older history now (/compact\n                           <focus>: what to keep in view)\n",
    )
    s.terminal.type(CTRL_C)
    await s.terminal.until((t) => t.includes("press Ctrl-C again to leave"), "the hint")
    s.terminal.type(CTRL_C)
    const id = await s.done()
    expect(await s.events(id)).toEqual([])
  })

  it("@file attaches the file's text as an editor's attached file is logged", async () => {
    const s = await open([[...text("Read it."), stop]], {}, { files: { "notes.txt": "buy milk\n" } })
    s.terminal.type("summarise @notes.txt")
    s.terminal.type(ENTER)
    const screen = await s.terminal.until((t) => t.includes("Read it."), "the answer")
    expect(screen).toContain(` › summarise @notes.txt\n attached ${s.cwd}/notes.txt\n Read it.`)
    const id = await s.quit()
    const user = (await s.events(id)).find((e) => e.type === "user/message")!
    expect(user.data).toEqual(expect.objectContaining({
      message: expect.objectContaining({
        content: [
          { type: "text", text: "summarise @notes.txt" },
          { type: "text", text: `<resource uri="file://${s.cwd}/notes.txt">\nbuy milk\n\n</resource>` },
        ],
      }),
    }))
  })

  it("a binary @file is not sent, and says why", async () => {
    const s = await open([], {}, { files: { "blob.bin": "a\u0000b" } })
    s.terminal.type("look at @blob.bin")
    s.terminal.type(ENTER)
    const screen = await s.terminal.until((t) => t.includes("not sent"), "the refusal")
    // Wrapped at the 80 columns.
    expect(screen).toContain(` not sent: @${s.cwd}/blob.bin is binary: only text files can be\n attached`)
    const id = await s.quit()
    expect(await s.events(id)).toEqual([])
  })

  it("Up recalls the prompts kept from before, and each prompt sent is kept", async () => {
    const kept: Array<string> = []
    const s = await open([[...text("Yes."), stop]], {}, { history: ["an earlier question"], remember: (t) => kept.push(t) })
    s.terminal.type("\x1b[A")
    await s.terminal.until((t) => t.includes("an earlier question"), "the recalled prompt")
    s.terminal.type(ENTER)
    await s.terminal.until((t) => t.includes("Yes."), "the answer")
    expect(kept).toEqual(["an earlier question"])
    await s.quit()
    expect(kept).toEqual(["an earlier question", "/quit"])
  })

  it("/new starts a session, /resume lists this directory's others with title, age, turns and status, and switches back", async () => {
    const s = await open([[...text("About the first."), stop], [...text("Back again."), stop]])
    s.terminal.type("first topic")
    s.terminal.type(ENTER)
    await s.terminal.until((t) => t.includes("About the first."), "the first answer")
    s.terminal.type("/new")
    s.terminal.type(ENTER)
    await s.terminal.until((t) => /new session \d{8}T/.test(t), "the new session")
    s.terminal.type("/resume")
    s.terminal.type(ENTER)
    const picker = await s.terminal.until((t) => t.includes("Resume which session?"), "the picker")
    expect(picker).toMatch(/Resume which session\?\n→ first topic +just now · 1 turn · idle\n/)
    s.terminal.type(ENTER)
    s.terminal.type("and now")
    s.terminal.type(ENTER)
    await s.terminal.until((t) => t.includes("Back again."), "the answer in the resumed session")
    // The session the chat opened with.
    const first = await s.quit()
    const prompts = (await s.events(first)).flatMap((e) => e.type === "user/message" ? [(e.data.message.content[0] as { text: string }).text] : [])
    expect(prompts).toEqual(["first topic", "and now"])
  })

  it("the editor: a backslash before Enter starts a new line, Esc clears, Ctrl-D at an empty prompt leaves", async () => {
    const s = await open([[...text("Two lines read."), stop]])
    s.terminal.type("a draft")
    await s.terminal.until((t) => t.includes("a draft"), "the draft")
    s.terminal.type("\x1b")
    await s.terminal.until((t) => !t.includes("a draft"), "the draft cleared")
    s.terminal.type("line one\\")
    s.terminal.type(ENTER)
    s.terminal.type("line two")
    s.terminal.type(ENTER)
    const screen = await s.terminal.until((t) => t.includes("Two lines read."), "the answer")
    expect(screen).toContain(" › line one\n line two\n Two lines read.")
    s.terminal.type("\x04")
    const id = await s.done()
    const user = (await s.events(id)).find((e) => e.type === "user/message")!
    expect(user.data).toEqual(expect.objectContaining({
      message: expect.objectContaining({ content: [{ type: "text", text: "line one\nline two" }] }),
    }))
  })

  it("Ctrl-C while a permission question is open takes it away and cancels the turn", async () => {
    const s = await open([
      toolCall("c1", "write_file", JSON.stringify({ path: "x.txt", content: "x" })),
      [...text("Next."), stop],
    ])
    s.terminal.type("write x")
    s.terminal.type(ENTER)
    await s.terminal.until((t) => t.includes("Reject"), "the permission question")
    s.terminal.type(CTRL_C)
    const screen = await s.terminal.until((t) => t.includes("the turn was cancelled"), "the cancel")
    expect(screen).not.toContain("Allow once")
    expect(screen).toMatch(/ ✗ Write x.txt failed: .+\n the turn was cancelled/)
    s.terminal.type("next")
    s.terminal.type(ENTER)
    await s.terminal.until((t) => t.includes("Next."), "the next answer")
    const id = await s.quit()
    const ends = (await s.events(id)).filter((e) => e.type === "turn/end").map((e) => e.data)
    expect(ends).toEqual([{ reason: "cancelled" }, { reason: "completed" }])
  })

  it("/model switches the model the next requests record, completes from the models offered; /doctor reports the log", async () => {
    const s = await open([[...text("From the other."), stop]], {}, {
      commands: SlashCommands.commands(["scripted/test-model", "scripted/other"]),
    })
    s.terminal.type("/model scripted/other")
    s.terminal.type(ENTER)
    await s.terminal.until((t) => t.includes("model: scripted/test-model → scripted/other from the next turn on"), "the switch")
    s.terminal.type("hello")
    s.terminal.type(ENTER)
    const answered = await s.terminal.until((t) => t.includes("From the other."), "the answer")
    expect(answered.split("\n").at(-1)).toMatch(/^ scripted\/other · /)
    s.terminal.type("/doctor")
    s.terminal.type(ENTER)
    await s.terminal.until((t) => /\/doctor\n[\s\S]*session \d{8}T/.test(t), "the doctor's report")
    s.terminal.type("/model scripted/o")
    await s.terminal.until((t) => /→ scripted\/other/.test(t), "the completion")
    s.terminal.type("\x1b")
    s.terminal.type("\x1b")
    const id = await s.quit()
    const requests = (await s.events(id)).filter((e) => e.type === "request/start").map((e) => e.data)
    expect(requests).toEqual([{ provider: "scripted", model: "other", step: 1, attempt: 1 }])
  })

  it("/mode auto-edit writes without asking and shows in the footer; /mode alone picks read-only, where a write is refused unasked", async () => {
    const s = await open([
      toolCall("c1", "write_file", JSON.stringify({ path: "a.txt", content: "a" })),
      [...text("Written."), stop],
      toolCall("c2", "write_file", JSON.stringify({ path: "b.txt", content: "b" })),
      [...text("Refused."), stop],
    ])
    s.send("/mode auto-edit")
    const switched = await s.terminal.until((t) => t.includes("mode: ask → auto-edit"), "the switch")
    expect(switched).toContain(" mode: ask → auto-edit: Writes and edits files without asking; asks before\n commands\n")
    expect(switched.split("\n").at(-1)).toBe(" scripted/test-model · auto-edit · /help for commands · Ctrl-D leaves · sessi...")
    s.send("write a")
    const written = await s.terminal.until((t) => t.includes("Written."), "the answer after the write")
    expect(written).toContain(" ✓ Write a.txt done")
    expect(written).not.toContain("Allow Write")
    expect(readFileSync(join(s.cwd, "a.txt"), "utf8")).toBe("a")
    s.send("/mode")
    const picker = await s.terminal.until((t) => t.includes("switch to which?"), "the picker")
    expect(picker).toMatch(/The session is in auto-edit mode; switch to which\?\n {2}ask +Asks before every file write and command\n +read-only +/)
    // The cursor starts on the mode in use.
    expect(picker).toMatch(/\n→ auto-edit \(in use\) +Writes and edits files without asking; asks be\n/)
    s.terminal.type("\x1b[A") // up: read-only
    s.terminal.type(ENTER)
    await s.terminal.until((t) => t.includes("mode: auto-edit → read-only"), "the second switch")
    s.send("write b")
    const refused = await s.terminal.until((t) => t.includes("Refused."), "the answer after the refusal")
    expect(refused).toMatch(/ ✗ Write b\.txt failed: /)
    expect(refused).not.toContain("Allow Write")
    expect(existsSync(join(s.cwd, "b.txt"))).toBe(false)
    s.send("/mode plan")
    await s.terminal.until((t) => t.includes("unknown mode plan: choose ask, read-only, auto-edit, full-access"), "the refusal of an unknown mode")
    const id = await s.quit()
    const modes = (await s.events(id)).flatMap((e) => (e.type === "session/mode" ? [e.data.mode] : []))
    expect(modes).toEqual(["auto-edit", "read-only"])
  })

  it("Shift-Tab moves through ask, auto-edit and read-only, never to full access, each switch logged", async () => {
    const s = await open([])
    s.terminal.type("\x1b[Z")
    await s.terminal.until((t) => t.includes("mode: ask → auto-edit"), "the first switch")
    s.terminal.type("\x1b[Z")
    await s.terminal.until((t) => t.includes("mode: auto-edit → read-only"), "the second switch")
    s.terminal.type("\x1b[Z")
    const back = await s.terminal.until((t) => t.includes("mode: read-only → ask"), "the third switch")
    // The switches are said, not echoed as typed commands.
    expect(back).not.toContain("› /mode")
    expect(back.split("\n").at(-1)).toMatch(/^ scripted\/test-model · \/help for commands/)
    s.send("/mode full-access")
    await s.terminal.until((t) => t.includes("mode: ask → full-access"), "the switch by name")
    s.terminal.type("\x1b[Z")
    await s.terminal.until((t) => t.includes("mode: full-access → ask"), "the way back")
    const id = await s.quit()
    const modes = (await s.events(id)).flatMap((e) => (e.type === "session/mode" ? [e.data.mode] : []))
    expect(modes).toEqual(["auto-edit", "read-only", "ask", "full-access", "ask"])
  })

  it("--mode and --reasoning are logged on opening and shown in the footer; /reasoning sets the effort; /new carries both over", async () => {
    const s = await open([], {}, { mode: "read-only", reasoning: "low" })
    await s.terminal.until((t) => t.includes("reasoning low"), "the footer with the settings")
    s.send("/reasoning high")
    const set = await s.terminal.until((t) => t.includes("reasoning effort: low → high"), "the switch")
    expect(set).toContain(
      " reasoning effort: low → high from the next turn on (scripted/test-model does\n not reason: it applies to a model that does)\n",
    )
    expect(set.split("\n").at(-1)).toBe(" scripted/test-model · reasoning high · read-only · /help for commands · Ctrl...")
    s.send("/new")
    const fresh = await s.terminal.until((t) => /new session (\d{8}T\S+)/.test(t), "the new session")
    const second = /new session (\d{8}T\S+)/.exec(fresh)![1]! as SessionId
    const first = await s.quit()
    const settings = (events: ReadonlyArray<SessionLog.SessionEvent>) =>
      events.flatMap((e) => (e.type === "session/mode" ? [`mode ${e.data.mode}`] : e.type === "session/reasoning" ? [`reasoning ${e.data.effort}`] : []))
    expect(settings(await s.events(first))).toEqual(["mode read-only", "reasoning low", "reasoning high"])
    expect(settings(await s.events(second))).toEqual(["mode read-only", "reasoning high"])
  })

  it("in read-only mode a plan is asked about with its text, and once approved the footer shows the session back in ask mode", async () => {
    const s = await open(
      [
        toolCall("c1", "exit_plan_mode", JSON.stringify({ plan: "1. Fix add in calc.py\n2. Run the tests" })),
        [...text("Carrying on."), stop],
      ],
      {},
      { mode: "read-only" },
    )
    await s.terminal.until((t) => t.includes("read-only · /help"), "the footer in read-only mode")
    s.send("plan a fix")
    const asked = await s.terminal.until((t) => t.includes("Reject"), "the question")
    expect(asked).toContain(" ? Allow Leave read-only mode and carry out the plan?\n   1. Fix add in calc.py\n   2. Run the tests\n")
    s.terminal.type(ENTER)
    const done = await s.terminal.until((t) => t.includes("Carrying on."), "the answer after the approval")
    expect(done.split("\n").at(-1)).toMatch(/^ scripted\/test-model · \/help for commands/)
    const id = await s.quit()
    expect((await s.events(id)).flatMap((e) => (e.type === "session/mode" ? [e.data.mode] : []))).toEqual(["read-only", "ask"])
  })

  it("/sessions shows the table with each row cut to the terminal's width, not wrapped", async () => {
    const s = await open([[...text("Noted."), stop]])
    s.send("a first prompt long enough that its title runs past the edge of an eighty-column terminal")
    await s.terminal.until((t) => t.includes("Noted."), "the answer")
    s.send("/sessions")
    const listed = await s.terminal.until((t) => t.includes("UPDATED"), "the table")
    const rows = listed.slice(listed.indexOf(" › /sessions\n") + " › /sessions\n".length).split("\n")
    // The session's directory is a long temporary one: the rows end where the terminal does.
    expect(rows[0]).toMatch(/^ ID +UPDATED +TURNS +STATUS +CWD +\.\.\.$/)
    expect(rows[1]).toMatch(/^ \d{8}T\d{6}-[0-9a-f]{8} +\S+ +1 +idle +\/tmp\/turnlog-\.\.\.$/)
    expect(rows.slice(0, 2).map((row) => row.length)).toEqual([80, 80])
    expect(rows[2]).toMatch(/^─+$/)
    await s.quit()
  })

  it("after /new the footer's cost and context share are the new session's", async () => {
    const usage = (inputTokens: number) => ({ type: "usage" as const, usage: { inputTokens, outputTokens: 0 } })
    const s = await open([[...text("First."), usage(1000), stop], [...text("Second."), usage(2000), stop]], {
      modelInfo: { contextWindow: 10_000, maxTokens: 1000, cost: { input: 3_000, output: 0, cacheRead: 0, cacheWrite: 0 } },
    })
    s.send("one")
    const first = await s.terminal.until((t) => t.includes("First."), "the first answer")
    expect(first.split("\n").at(-1)).toMatch(/^ scripted\/test-model · ↑1000 ↓0 tokens · 10% of context · \$3\.00 · /)
    s.send("/new")
    await s.terminal.until((t) => /new session \d{8}T/.test(t), "the new session")
    s.send("two")
    const second = await s.terminal.until((t) => t.includes("Second."), "the second answer")
    expect(second.split("\n").at(-1)).toMatch(/^ scripted\/test-model · ↑2000 ↓0 tokens · 20% of context · \$6\.00 · /)
    await s.quit()
  })

  it("a refused key: the turn's failure read out of the provider's body, naming the variable the key came from", async () => {
    const message = '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'
    const s = await open([[{ type: "finish", reason: { kind: "error", failure: { code: "AUTH", message } } }]], {}, {
      keyVariable: (route) => (route === "scripted/test-model" ? "SCRIPTED_KEY" : undefined),
    })
    s.send("hello")
    const failed = await s.terminal.until((t) => t.includes("the turn failed"), "the failure")
    expect(failed).toContain(" the turn failed: 401 authentication_error: invalid x-api-key (AUTH); check the\n key in SCRIPTED_KEY\n")
    await s.quit()
  })

  it("shows reasoning dimmed, and Ctrl-O folds it to its first line and back", async () => {
    const s = await open([[
      { type: "block-start", index: 0, blockType: "reasoning" },
      { type: "reasoning-delta", index: 0, text: "First thought.\nSecond thought.\nThird." },
      { type: "block-end", index: 0, block: { type: "reasoning", text: "First thought.\nSecond thought.\nThird." } },
      { type: "block-start", index: 1, blockType: "text" },
      { type: "text-delta", index: 1, text: "The answer." },
      { type: "block-end", index: 1, block: { type: "text", text: "The answer." } },
      stop,
    ]])
    s.terminal.type("think")
    s.terminal.type(ENTER)
    const full = await s.terminal.until((t) => t.includes("The answer."), "the answer")
    expect(full).toContain(" › think\n First thought.\n Second thought.\n Third.\n The answer.")
    // Dimmed (SGR 2) and italic: the cell's attributes, as the terminal holds them.
    const cell = s.terminal.xterm.buffer.active.getLine(full.split("\n").indexOf(" First thought."))!.getCell(1)!
    expect([cell.getChars(), cell.isDim() !== 0, cell.isItalic() !== 0, cell.isBold() !== 0]).toEqual(["F", true, true, false])
    s.terminal.type("\x0f") // Ctrl-O
    const folded = await s.terminal.until((t) => t.includes("more lines"), "the folded reasoning")
    expect(folded).toContain(" › think\n First thought. … (2 more lines, Ctrl-O unfolds)\n The answer.")
    s.terminal.type("\x0f")
    await s.terminal.until((t) => t.includes(" Second thought."), "the unfolded reasoning")
    await s.quit()
  })

  it("a large paste stays one marker in the editor and is sent whole", async () => {
    const s = await open([[...text("Got it."), stop]])
    const pasted = Array.from({ length: 20 }, (_, i) => `row ${i}`).join("\n")
    s.terminal.type(`\x1b[200~${pasted}\x1b[201~`)
    await s.terminal.until((t) => /\[paste #1 \+20 lines\]/.test(t), "the paste marker")
    s.terminal.type(ENTER)
    await s.terminal.until((t) => t.includes("Got it."), "the answer")
    const id = await s.quit()
    const user = (await s.events(id)).find((e) => e.type === "user/message")!
    expect(user.data).toEqual(expect.objectContaining({
      message: expect.objectContaining({ content: [{ type: "text", text: pasted }] }),
    }))
  })

  it("a retry is a status line while it waits, then the answer streams", async () => {
    const s = await open([
      [{ type: "finish", reason: { kind: "error", failure: { code: "SERVER", message: "the provider is overloaded", status: 529 } } }],
      [...text("After the retry."), stop],
    ], { retryDelayMs: 1 })
    s.terminal.type("hi")
    s.terminal.type(ENTER)
    const screen = await s.terminal.until((t) => t.includes("After the retry."), "the answer")
    expect(screen).toMatch(/ › hi\n the provider is overloaded \(SERVER\); retry 2 in [\d.]+ s\n After the retry\./)
    await s.quit()
  })
})
