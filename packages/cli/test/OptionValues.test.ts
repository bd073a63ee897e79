// An option that takes a value and is given none is a usage error before the
// parser runs: `run --model` used to send "--model"... as the prompt, and
// `run --continue --model` to append it to the last session.
import { describe, expect, it } from "vitest"
import * as UnknownOptions from "../src/UnknownOptions.js"

describe("an option without its value", () => {
  it.each([
    [["run", "--session"], "option --session needs a value (turnlog run --session <value>)"],
    [["run", "--model"], "option --model needs a value (turnlog run --model <value>)"],
    [["run", "--max-tokens"], "option --max-tokens needs a value (turnlog run --max-tokens <value>)"],
    [["run", "--continue", "--model"], "option --model needs a value (turnlog run --model <value>)"],
    [["run", "--model", "--continue", "hi"], "option --model needs a value (turnlog run --model <value>)"],
    [["run", "--session", "--", "hi"], "option --session needs a value (turnlog run --session <value>)"],
    [["prune", "--older-than"], "option --older-than needs a value (turnlog prune --older-than <value>)"],
  ])("turnlog %j is refused: %s", (args, message) => {
    expect(UnknownOptions.check(args)).toBe(message)
  })

  it.each([
    [["run", "--model", "a/b", "hi"]],
    [["run", "--model=a/b", "--continue", "hi"]],
    [["run", "--session", "abc", "-"]],
    [["run", "--model", "a/b", "--", "--model"]],
    [["export", "abc", "-o", "out.html", "--html"]],
  ])("turnlog %j passes", (args) => {
    expect(UnknownOptions.check(args)).toBeUndefined()
  })
})
