// `/compact` as a prompt, with or without a focus; other prompts are no command.
import { describe, expect, it } from "vitest"
import { Commands } from "../src/index.js"

const prompt = (text: string) => [{ type: "text" as const, text }]

describe("/compact <focus>", () => {
  it("takes the text after the command as the focus", () => {
    expect(Commands.compactFocus(prompt("/compact"))).toBe("")
    expect(Commands.compactFocus(prompt("  /compact  the tests of fork \n"))).toBe("the tests of fork")
    expect(Commands.compactFocus(prompt("/compact\nline one\nline two"))).toBe("line one\nline two")
    expect(Commands.compactFocus(prompt("/compaction"))).toBeUndefined()
    expect(Commands.compactFocus(prompt("please /compact"))).toBeUndefined()
    expect(Commands.compactFocus([...prompt("/compact"), ...prompt("more")])).toBeUndefined()
  })
})
