// `turnlog chat` without a terminal on stdin and stdout, through the command
// line (in-process). (The interactive session in a real terminal: Chat.e2e.test.ts.)
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

describe("turnlog chat without a terminal", () => {
  it("is a usage error that points at run, and makes no session", async () => {
    const home = tempDir("chat-notty")
    const result = await turnlog(["chat"], { cwd: home, env: { TURNLOG_HOME: home } })
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      "turnlog: turnlog chat needs a terminal on stdin and stdout; for one turn from a script use: turnlog run <prompt>\n",
    )
  })
})
