// A home that is a file is said to be so (exit 1), not listed as empty,
// through the command line (in-process). (What is not a regular file where a
// log or the config should be, and a home the user cannot enter:
// HostileFiles.e2e.test.ts.)
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

const ID = "20250101T000000-0000f1f0"

describe("a home that cannot be used", () => {
  it.each([["sessions"], ["doctor"], ["show", ID]])("turnlog %j on a home that is a regular file says so (exit 1)", async (...args) => {
    const dir = tempDir("file-home")
    const home = join(dir, "home")
    writeFileSync(home, "")
    const result = await turnlog(["--home", home, ...args], { cwd: dir })
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr: `turnlog: the home ${home} is not a directory\n`,
    })
  })
})
