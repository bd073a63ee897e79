// What the interactive session says besides the answer, as a person sees it
// in a headless terminal: the diff under an edit's status line, the footer's
// cost, a compaction while it happens, the models /model offers, and
// /export's page.
import { describe, expect, it } from "vitest"
import { ENTER, open, stop, text, toolCall } from "./support/chat.js"

describe("the interactive session's status lines", () => {
  it("an edit_file call shows the diff of the edit under its done line, added lines green and removed red", async () => {
    const s = await open([
      toolCall("c1", "edit_file", JSON.stringify({ path: "a.txt", old_text: "two", new_text: "2" })),
      [...text("Edited."), stop],
    ], {}, { files: { "a.txt": "one\ntwo\nthree\n" } })
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
