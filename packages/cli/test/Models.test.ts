// `turnlog models` through the command line (in-process): the config's providers' models and
// those of built-in providers whose key is set, with window and output limit;
// a typo'd model route is a usage error with a did-you-mean.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

describe("turnlog models", () => {
  const home = tempDir("models-home")
  const cwd = tempDir("models-cwd")
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      providers: {
        local: {
          api: "openai-completions",
          baseUrl: "http://127.0.0.1:9/v1",
          models: [{ id: "small", contextWindow: 32768, maxTokens: 4096 }, { id: "big", contextWindow: 131072, maxTokens: 16384 }],
        },
      },
    }),
  )
  const env = { TURNLOG_HOME: home }

  it("lists the config's providers' models, and a built-in provider's once its key is set", async () => {
    const without = await turnlog(["models"], { cwd, env })
    expect({ code: without.code, stdout: without.stdout, stderr: without.stderr }).toEqual({
      code: 0,
      stdout: "local/small   32.8k window  4096 output\nlocal/big    131.1k window  16.4k output\n",
      stderr: "",
    })
    const keyed = await turnlog(["models"], { cwd, env: { ...env, ANTHROPIC_API_KEY: "sk-models-0123456789" } })
    expect(keyed.code, keyed.stderr).toBe(0)
    const lines = keyed.stdout.trimEnd().split("\n")
    expect(lines.slice(0, 2).map((l) => l.split(/\s+/)[0])).toEqual(["local/small", "local/big"])
    expect(lines.find((l) => l.startsWith("anthropic/claude-sonnet-4-5 "))).toMatch(/^anthropic\/claude-sonnet-4-5 +200k window {2}64k output$/)
    expect(lines.every((l) => l.startsWith("local/") || l.startsWith("anthropic/"))).toBe(true)
  })

  it.each([
    ["anthropic/claude-sonet-4-5", "provider anthropic has no model claude-sonet-4-5 (did you mean anthropic/claude-sonnet-4-5?)"],
    ["local/smal", "provider local has no model smal (did you mean local/small?)"],
    ["lokal/small", "unknown provider lokal (route lokal/small) (did you mean local/small?)"],
  ])("a typo'd --model %s is a usage error with a did-you-mean (exit 2)", async (route, said) => {
    const result = await turnlog(["run", "--model", route, "hi"], { cwd, env: { ...env, ANTHROPIC_API_KEY: "sk-models-0123456789" } })
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `turnlog: model ${route}: ${said} (see: turnlog models)\n`,
    })
  })
})
