// `sessions`, `show` and `doctor` only read: pointed at a home where nothing
// has been stored (a mistyped --home), they answer as for an empty store and
// create nothing — no `<home>/sessions/`, no `sessions.db`.
import { existsSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

describe("read-only commands on a home where nothing has been stored", () => {
  it.each([
    [["sessions"], { code: 0, stdout: "no sessions yet (start one with: turnlog run <prompt>)\n", stderr: "" }],
    [["doctor", "--all"], { code: 0, stdout: "no sessions to examine\n", stderr: "" }],
    [["--store", "sqlite", "sessions"], { code: 0, stdout: "no sessions yet (start one with: turnlog run <prompt>)\n", stderr: "" }],
    [["show", "20250101T000000-00000000"], {
      code: 1,
      stdout: "",
      stderr: "turnlog: session 20250101T000000-00000000 not found (list sessions with: turnlog sessions)\n",
    }],
  ])("turnlog %j answers as for an empty store and creates nothing", async (args, expected) => {
    const home = join(tempDir("readonly"), "typo")
    const result = await turnlog(["--home", home, ...args], { cwd: tempDir("readonly-cwd") })
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual(expected)
    expect(existsSync(home)).toBe(false)
  })
})
