// A typo of a command is refused with the command it is closest to; a word
// far from every command is left to the parser (which lists them).
import { describe, expect, it } from "vitest"
import * as UnknownOptions from "../src/UnknownOptions.js"

describe("an unknown command", () => {
  it.each([
    [["sesions"], "unknown command sesions (did you mean turnlog sessions?)"],
    [["modles"], "unknown command modles (did you mean turnlog models?)"],
    [["--home", "/h", "doctr", "x"], "unknown command doctr (did you mean turnlog doctor?)"],
  ])("turnlog %j gets a did-you-mean", (args, said) => {
    expect(UnknownOptions.check(args)).toBe(said)
  })

  it.each([[["teleport"]], [["run", "sesions"]], [["show"]]])("turnlog %j is left to the parser", (args) => {
    expect(UnknownOptions.check(args)).toBeUndefined()
  })
})
