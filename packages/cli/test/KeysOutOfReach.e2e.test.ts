// Provider keys out of a command's reach, through the real binary: a command
// the model runs reads turnlog's environment block (/proc/$PPID/environ and
// /proc/<turnlog pid>/environ) and hands it back encoded, so that redaction
// cannot hide the key — the key is not in it, with the sandbox and without.
// (A key written into a provider's baseUrl: KeysOutOfReach.test.ts.)
import { spawn } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Builtins } from "@turnlog/agent"
import { Loopback } from "@turnlog/testkit"
import { BIN, cleanEnv, removeTempDirs, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })
afterAll(removeTempDirs)

const KEY = "sk-loopback-5e1d7c3b9a2f4e60"

// The sandbox test is skipped with one line where no sandbox works, unless
// TURNLOG_REQUIRE_SANDBOX is set (as CI does).
const sandbox = await Builtins.detectSandbox(process.env.PATH)
const required = (process.env.TURNLOG_REQUIRE_SANDBOX ?? "") !== ""
if (sandbox === undefined && !required) {
  process.stderr.write("sandbox tests skipped: bubblewrap (bwrap) is not installed or cannot start here; set TURNLOG_REQUIRE_SANDBOX=1 to fail instead\n")
}

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly pid: number
}

describe("a command reading turnlog's environment block", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  // Starts `turnlog run` and, knowing its pid, queues the model's answer: a
  // command that prints both environment blocks base64-encoded.
  const runReading = (env: Record<string, string>): Promise<Ran & { readonly blocks: string }> => {
    const home = tempDir("keys")
    const cwd = tempDir("keys-cwd")
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
    const child = spawn(process.execPath, [BIN, "run", "--allow-tools", "read the environment"], {
      cwd,
      env: { ...cleanEnv(), TURNLOG_HOME: home, LOCAL_TEST_KEY: KEY, ...env },
    })
    const pid = child.pid!
    const command = `cat /proc/$PPID/environ /proc/${pid}/environ 2>/dev/null | base64 -w0`
    // The loopback answers from this process: queued before any request can arrive.
    server.enqueue(
      { blocks: [{ type: "tool-call", id: "call_env", name: "run_command", arguments: JSON.stringify({ command }) }], finish: "tool-calls" },
      { blocks: [{ type: "text", text: "Read." }] },
    )
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => stdout += chunk.toString("utf8"))
    child.stderr.on("data", (chunk: Buffer) => stderr += chunk.toString("utf8"))
    return new Promise((resolve) =>
      child.once("close", (code) => {
        const file = readdirSync(join(home, "sessions")).find((f) => f.endsWith(".jsonl"))!
        const result = readFileSync(join(home, "sessions", file), "utf8").split("\n").filter((l) => l.includes('"tool/result"'))
        const encoded = (JSON.parse(result[0]!) as { data: { message: { content: Array<{ content: string }> } } }).data.message
          .content[0]!.content
        resolve({ code, stdout, stderr, pid, blocks: Buffer.from(encoded, "base64").toString("latin1") })
      })
    )
  }

  it("without the sandbox: the block is read, and holds the variable's name without its value", async () => {
    const ran = await runReading({ TURNLOG_SANDBOX: "off" })
    expect([ran.code, ran.stdout], ran.stderr).toEqual([0, "Read.\n"])
    // Read twice (as the parent and by pid): the same process, turnlog.
    const entries = ran.blocks.split("\0")
    expect(entries.filter((e) => e.startsWith("TURNLOG_SANDBOX="))).toEqual(["TURNLOG_SANDBOX=off", "TURNLOG_SANDBOX=off"])
    expect(entries.filter((e) => e.startsWith("LOCAL_TEST_KEY"))).toEqual(["LOCAL_TEST_KEY=", "LOCAL_TEST_KEY="])
    expect(ran.blocks).not.toContain(KEY)
    expect(ran.blocks).not.toContain(KEY.slice(3, 20))
  })

  it.skipIf(sandbox === undefined && !required)("in the sandbox: turnlog is not there to read; `require` runs it", async () => {
    const ran = await runReading({ TURNLOG_SANDBOX: "require" })
    expect([ran.code, ran.stdout], ran.stderr).toEqual([0, "Read.\n"])
    // Only the sandbox's own first process, started without the key variables.
    expect(ran.blocks).toContain("TURNLOG_SANDBOX=require\0")
    expect(ran.blocks).not.toContain("LOCAL_TEST_KEY")
    expect(ran.blocks).not.toContain(KEY)
  })
})
