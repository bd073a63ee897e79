// A prompt on an existing session whose provider key is not set, through the
// command line (in-process): refused before the turn begins with the one sentence naming
// the variable, exit 1, and the session's log unchanged to the byte — as a
// new session is refused before it is made.
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { turnlog } from "./support/inProcess.js"
import { hasStackTrace, removeTempDirs, sessionIds, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000 })
afterAll(removeTempDirs)

describe("run on an existing session without its provider key", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  it("--continue and --session are refused naming the variable; nothing is appended and no request is sent", async () => {
    const home = tempDir("nokey-continue-home")
    const cwd = tempDir("nokey-continue-cwd")
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        model: "local/test-model",
        providers: {
          local: {
            api: "openai-completions",
            baseUrl: server.baseUrl("openai-completions"),
            apiKeyEnv: "LOCAL_TEST_KEY",
            models: [{ id: "test-model" }],
          },
        },
      }),
    )
    server.enqueue({ blocks: [{ type: "text", text: "First answer." }] })
    const first = await turnlog(["run", "hello"], { cwd, env: { TURNLOG_HOME: home, LOCAL_TEST_KEY: "sk-local-1" } })
    expect([first.code, first.stdout], first.stderr).toEqual([0, "First answer.\n"])
    const [id] = sessionIds(home)
    const file = join(home, "sessions", `${id}.jsonl`)
    const before = readFileSync(file, "utf8")
    const requests = server.requests().length

    const sentence =
      `turnlog: no credential for local/test-model: set the environment variable LOCAL_TEST_KEY (MISSING_CREDENTIAL); nothing was added to session ${id}\n`
    for (const args of [["run", "--continue", "again"], ["run", "--session", id!, "again"]]) {
      const refused = await turnlog(args, { cwd, env: { TURNLOG_HOME: home } })
      expect({ code: refused.code, stdout: refused.stdout }, refused.stderr).toEqual({ code: 1, stdout: "" })
      expect(refused.stderr).toContain(sentence)
      expect(hasStackTrace(refused.stderr)).toBe(false)
      expect(readFileSync(file, "utf8")).toBe(before)
    }
    expect(server.requests().length).toBe(requests)
    expect(sessionIds(home)).toEqual([id])
  })
})
