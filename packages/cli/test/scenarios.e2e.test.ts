/**
 * Every scenario under `scenarios/`: the real `turnlog acp` binary as a
 * subprocess, driven by the SDK's client, its frames, durable logs and notes
 * compared with the expected files. `TURNLOG_SCENARIO_UPDATE=1` (or
 * `npm run scenarios -w @turnlog/cli -- --update`) rewrites them.
 */
import { fileURLToPath } from "node:url"
import { describe, expect, it, vi } from "vitest"
import { ScenarioRunner } from "@turnlog/testkit"

// Each test starts real processes one after another; on a busy machine that is slow, never wrong.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 })

const BIN = fileURLToPath(new URL("../bin/turnlog.js", import.meta.url))
const DIR = fileURLToPath(new URL("./scenarios", import.meta.url))
const UPDATE = process.env.TURNLOG_SCENARIO_UPDATE === "1"

const REQUIRED = [
  "max-tokens-continue",
  "legacy-state-continue",
  "tool-roundtrip",
  "permission-denied",
  "cancel-mid-stream",
  "provider-error-then-continue",
  "torn-tail-resume",
  "load-session-replay",
]

describe("scenarios", () => {
  const dirs = ScenarioRunner.list(DIR)

  it("include every scenario the agent is held to", () => {
    const names = dirs.map((d) => d.slice(DIR.length + 1))
    for (const name of REQUIRED) expect(names).toContain(name)
  })

  describe.concurrent.each(dirs.map((dir) => [dir.slice(DIR.length + 1), dir] as const))("%s", (_, dir) => {
    it("matches its expected frames, log and notes", async () => {
      const scenario = ScenarioRunner.load(dir)
      const result = await ScenarioRunner.run(scenario, { bin: BIN })
      if (UPDATE) ScenarioRunner.update(scenario, result)
      expect(result.exitCode, result.stderr).toBe(0)
      expect(scenario.expected.stdout, "stdout.expected.jsonl is missing: run with TURNLOG_SCENARIO_UPDATE=1").toBeDefined()
      if (UPDATE) return
      expect(result.stdout).toEqual(scenario.expected.stdout)
      expect(result.session).toEqual(scenario.expected.session)
      expect(result.notes).toEqual(scenario.expected.stderr ?? [])
    })
  })
})
