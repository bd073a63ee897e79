// Error wording found in an adversarial pass: a huge config value is named by
// a short prefix, not echoed back; a session id no file could have is "not a
// session id", not ENAMETOOLONG; a provider's baseUrl that is no URL is
// refused when the config is read, naming the field, not at each turn.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir, textScript } from "./support/turnlog.js"

afterAll(removeTempDirs)

const X40 = "x".repeat(40)

describe("error wording", () => {
  const home = tempDir("wording-home")
  const cwd = tempDir("wording-cwd")
  const env = { TURNLOG_HOME: home }

  it("a long string in the config is quoted by a short prefix and its length", async () => {
    const file = join(home, "long.json")
    writeFileSync(file, JSON.stringify({ maxTokens: "x".repeat(900_000) }))
    const result = await turnlog(["--config", file, "sessions"], { cwd, env })
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `turnlog: config file ${file}: maxTokens: Expected number, actual "${X40}…" (900000 characters) ` +
        "(keys: model, maxTokens, streamIdleTimeoutSeconds, idleReleaseSeconds, providers, permissions, scriptedModel, store, database, passEnv, mcpServers, compaction, system, appendSystem, systemFile, appendSystemFile)\n",
    })
  })

  it.each([
    [["show", "a".repeat(5000)]],
    [["doctor", "a".repeat(5000)]],
    [["run", "--session", "a".repeat(5000), "hi"]],
  ])("turnlog %# with a 5,000-character id: not found, not a session id (exit 1)", async (args) => {
    const result = await turnlog(args, { cwd, env: { ...env, TURNLOG_SCRIPTED_MODEL: textScript(home, ["an answer"]) } })
    expect(result.code).toBe(1)
    expect(result.stderr.split("\n").at(-2)).toBe(
      `turnlog: session "${"a".repeat(40)}…" (5000 characters) not found: that is not a session id (list sessions with: turnlog sessions)`,
    )
  })

  it("a path is not a session id", async () => {
    const result = await turnlog(["show", "../../etc/passwd"], { cwd, env })
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 1,
      stderr: 'turnlog: session "../../etc/passwd" not found: that is not a session id (list sessions with: turnlog sessions)\n',
    })
  })

  it("a provider baseUrl that is not a URL is refused when the config is read, naming the field", async () => {
    const file = join(home, "url.json")
    writeFileSync(
      file,
      JSON.stringify({
        providers: { local: { api: "openai-completions", baseUrl: "not a url", apiKeyEnv: "K", models: [{ id: "m" }] } },
      }),
    )
    const result = await turnlog(["--config", file, "sessions"], { cwd, env })
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: `turnlog: config file ${file}: providers.local.baseUrl: expected an http:// or https:// URL, got "not a url"\n`,
    })
  })
})
