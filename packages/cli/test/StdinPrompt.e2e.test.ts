// The prompt from standard input, through the real binary against the
// loopback provider: piped with no prompt, `-`, and a prompt with piped input
// (fenced after it); no prompt and nothing piped stays a usage error.
import { execFile, spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { BIN, cleanEnv, type Outcome, removeTempDirs, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })
afterAll(removeTempDirs)

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

describe("the prompt from stdin", () => {
  let server: Loopback.Server
  let env: Record<string, string>
  let cwd: string
  beforeAll(async () => {
    server = await Loopback.start()
    const home = tempDir("stdin-home")
    cwd = tempDir("stdin-cwd")
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        model: "loop/m",
        providers: {
          loop: {
            api: "anthropic-messages",
            baseUrl: server.baseUrl("anthropic-messages"),
            apiKeyEnv: "LOOP_TEST_KEY",
            models: [{ id: "m", contextWindow: 200000, maxTokens: 8192 }],
          },
        },
      }),
    )
    env = { ...cleanEnv(), TURNLOG_HOME: home, LOOP_TEST_KEY: "sk-stdin-0123456789" }
  })
  afterAll(() => server.close())

  /** A shell line run as a user types it, `turnlog` standing for the binary. */
  const shell = (line: string): Promise<Outcome> =>
    new Promise((resolve) => {
      const turnlog = `${quote(process.execPath)} ${quote(BIN)}`
      execFile("/bin/sh", ["-c", line.replaceAll("turnlog", turnlog)], { cwd, env }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
      })
    })

  /** The text of the last user message the provider received. */
  const received = () => {
    const messages = (server.requests().at(-1)!.body as { messages: Array<{ role: string; content: unknown }> }).messages
    const content = messages.at(-1)!.content
    return typeof content === "string" ? content : (content as Array<{ text: string }>).map((b) => b.text).join("")
  }

  it("piped input with no prompt is the prompt", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "hi" }] })
    const run = await shell(`printf 'say hi\\n' | turnlog run`)
    expect(run.stdout).toBe("hi\n")
    expect(run.code).toBe(0)
    expect(received()).toBe("say hi")
  })

  it("a prompt with piped input gets the input after it, fenced", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "reviewed" }] })
    const run = await shell(`printf 'const a = 1\\n\`\`\`md\\n' | turnlog run Review this:`)
    expect(run.code).toBe(0)
    expect(received()).toBe("Review this:\n\n````\nconst a = 1\n```md\n````")
  })

  it("`-` reads the prompt from stdin to its end, whatever stdin is (here a socket the parent closes)", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "read" }] })
    const child = spawn(process.execPath, [BIN, "run", "-"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    child.stdout.on("data", (d: Buffer) => void (stdout += d.toString()))
    // Written in two pieces, the end later: the whole input is read, not what arrived first.
    child.stdin.write("first half, ")
    setTimeout(() => child.stdin.end("second half"), 300)
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
    expect(code).toBe(0)
    expect(stdout).toBe("read\n")
    expect(received()).toBe("first half, second half")
  })

  it("no prompt and nothing piped, or blank input, is a usage error", async () => {
    const before = server.requests().length
    const run = await shell(`turnlog run < /dev/null`)
    expect(run).toEqual({
      code: 2,
      stdout: "",
      stderr: "turnlog: no prompt: turnlog run <prompt…>, or pipe it in: echo <prompt> | turnlog run\n",
    })
    const empty = await shell(`printf '  \\n' | turnlog run`)
    expect(empty.code).toBe(2)
    expect(empty.stderr).toBe("turnlog: the prompt is empty: turnlog run <prompt…>\n")
    expect(server.requests().length).toBe(before)
  })
})
