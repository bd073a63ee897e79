// A key written into a provider's baseUrl is refused when the config is read,
// through the command line (in-process). (Keys out of a command's reach:
// KeysOutOfReach.e2e.test.ts.)
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

describe("a provider baseUrl carrying a user name or password", () => {
  it("is refused when the config is read: one sentence, exit 2, the password not repeated, nothing stored", async () => {
    const home = tempDir("keys-url")
    const cwd = tempDir("keys-url-cwd")
    const file = join(home, "config.json")
    writeFileSync(
      file,
      JSON.stringify({
        model: "local/m",
        providers: {
          local: { api: "openai-completions", baseUrl: "https://me:hunter2-secret@proxy.example/v1", apiKeyEnv: "K", models: [{ id: "m" }] },
        },
      }),
    )
    const result = await turnlog(["run", "hello"], { cwd, env: { TURNLOG_HOME: home, K: "sk-some-key-value" } })
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: `turnlog: config file ${file}: providers.local.baseUrl: a URL with a user name or password is refused; ` +
        "put the key in the environment variable that apiKeyEnv names\n",
    })
    expect(existsSync(join(home, "sessions"))).toBe(false)
  })
})
