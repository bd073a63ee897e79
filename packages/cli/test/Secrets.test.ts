// Provider credentials stay out of commands and out of everything turnlog
// writes — the log, stdout, stderr, the next request — through the command line (in-process)
// against the loopback provider, with fake keys in the environment.
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { SessionLog, type StreamChunk } from "@turnlog/protocol"
import { Loopback } from "@turnlog/testkit"
import { decodeConfig } from "../src/Settings.js"
import { turnlog } from "./support/inProcess.js"
import { logLines, removeTempDirs, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 })
afterAll(removeTempDirs)

const KEY = "sk-loopback-7f3a9c2e4b1d8f60"
const ANTHROPIC_KEY = "sk-ant-fake-0a1b2c3d4e5f6a7b"

interface LogLine {
  readonly type?: string
  readonly data?: { readonly message?: { readonly content?: ReadonlyArray<{ readonly content?: string }> } }
}

const logOf = (home: string): { readonly id: string; readonly text: string; readonly lines: Array<LogLine> } => {
  const files = readdirSync(join(home, "sessions")).filter((f) => f.endsWith(".jsonl"))
  expect(files).toHaveLength(1)
  const id = files[0]!.replace(/\.jsonl$/, "")
  const text = readFileSync(join(home, "sessions", files[0]!), "utf8")
  // The events as a store reads them (a version-4 line may refer to what its request streamed), the header first.
  return { id, text, lines: logLines(home, id) as Array<LogLine> }
}

const toolResults = (lines: ReadonlyArray<LogLine>): Array<string> =>
  lines.filter((l) => l.type === "tool/result").map((l) => l.data?.message?.content?.[0]?.content ?? "")

describe("against the loopback provider, with keys in the environment", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  const setup = (extra: Record<string, unknown> = {}) => {
    const home = tempDir("secrets")
    const cwd = tempDir("secrets-cwd")
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
        ...extra,
      }),
    )
    const env = { TURNLOG_HOME: home, LOCAL_TEST_KEY: KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY }
    return { home, cwd, env }
  }

  const expectNoKey = (...texts: ReadonlyArray<string>) => {
    for (const text of texts) {
      expect(text).not.toContain(KEY)
      expect(text).not.toContain(ANTHROPIC_KEY)
    }
  }

  it("run_command env runs without the credential variables; nothing written carries a key", async () => {
    const { home, cwd, env } = setup()
    const before = server.requests().length
    server.enqueue(
      { blocks: [{ type: "tool-call", id: "call_env", name: "run_command", arguments: '{"command":"env"}' }], finish: "tool-calls" },
      { blocks: [{ type: "text", text: "Listed." }] },
    )
    const result = await turnlog(["run", "--allow-tools", `show the environment; my key is ${KEY}`], { cwd, env })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe("Listed.\n")

    const log = logOf(home)
    const [output] = toolResults(log.lines)
    // The command ran with the rest of the environment…
    expect(output).toContain(`TURNLOG_HOME=${home}\n`)
    // …but without the configured provider's variable, nor a built-in provider's.
    expect(output).not.toMatch(/^LOCAL_TEST_KEY=/m)
    expect(output).not.toMatch(/^ANTHROPIC_API_KEY=/m)
    // The prompt itself is stored and sent with the key hidden.
    expect(log.text).toContain("show the environment; my key is [redacted]")
    expect(JSON.stringify(server.requests()[before]!.body)).toContain("show the environment; my key is [redacted]")
    const next = server.requests()[before + 1]!
    expect(JSON.stringify(next.body)).toContain("TURNLOG_HOME=")
    expectNoKey(log.text, result.stdout, result.stderr, JSON.stringify(next.body))
    // The key still went where it belongs.
    expect(next.headers.authorization).toBe(`Bearer ${KEY}`)
  })

  it("a provider that echoes the key — in text, and split across a tool call's argument deltas — leaves it nowhere", async () => {
    const { home, cwd, env } = setup()
    const before = server.requests().length
    server.enqueue(
      {
        blocks: [
          { type: "text", text: `Your key is ${KEY} and ${ANTHROPIC_KEY}.` },
          // The loopback streams arguments in three pieces: the key is cut across them.
          { type: "tool-call", id: "call_echo", name: "run_command", arguments: JSON.stringify({ command: `echo ${KEY}` }) },
        ],
        finish: "tool-calls",
      },
      { blocks: [{ type: "text", text: `Again: ${KEY}` }] },
    )
    const result = await turnlog(["run", "--allow-tools", "what is my key?"], { cwd, env })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe("Your key is [redacted] and [redacted].\nAgain: [redacted]\n")
    expect(result.stderr).toContain("turnlog: tool run_command done: [redacted]\n")

    const log = logOf(home)
    expect(toolResults(log.lines)).toEqual(["[redacted]\n"])
    // The raw argument deltas logged put together hold the placeholder, not fragments of the key.
    const argumentDeltas = log.lines.flatMap((l) => SessionLog.chunksOf(l as unknown as SessionLog.SessionEvent))
      .flatMap((c) => (c.type === "tool-call-delta" ? [c.argumentsDelta] : []))
    expect(argumentDeltas.length).toBeGreaterThan(1)
    expect(argumentDeltas.join("")).toBe('{"command":"echo [redacted]"}')
    const next = server.requests()[before + 1]!
    expect(JSON.stringify(next.body)).toContain("Your key is [redacted] and [redacted].")
    expectNoKey(log.text, result.stdout, result.stderr, JSON.stringify(next.body))

    // A log written before redaction existed: show and the next request still carry no key.
    const file = join(home, "sessions", `${log.id}.jsonl`)
    // Written as that build would have: the key in every text, raw chunks included (a batch re-encoded around it).
    const withKey = (log.lines as Array<SessionLog.SessionEvent>).map((value) => {
      const line = JSON.stringify(value)
      if (value.type !== "assistant/chunks") return line.replaceAll("[redacted]", KEY)
      const chunks = SessionLog.chunksOf(value).map((c) => JSON.parse(JSON.stringify(c).replaceAll("[redacted]", KEY)) as StreamChunk)
      return JSON.stringify({ ...value, data: SessionLog.batchOf(chunks).data })
    })
    writeFileSync(file, withKey.join("\n") + "\n")
    const shown = await turnlog(["show", log.id], { cwd, env })
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toContain("Your key is [redacted] and [redacted].")
    expectNoKey(shown.stdout, shown.stderr)

    server.enqueue({ blocks: [{ type: "text", text: "Fine." }] })
    const continued = await turnlog(["run", "--continue", "go on"], { cwd, env })
    expect(continued.code, continued.stderr).toBe(0)
    const last = server.requests().at(-1)!
    expect(JSON.stringify(last.body)).toContain("Your key is [redacted] and [redacted].")
    expectNoKey(JSON.stringify(last.body), continued.stdout, continued.stderr)
  })

  it("a variable passEnv names is passed to commands (its value still redacted); the others are not", async () => {
    const { home, cwd, env } = setup({ passEnv: ["LOCAL_TEST_KEY"] })
    server.enqueue(
      {
        blocks: [{
          type: "tool-call",
          id: "call_pass",
          name: "run_command",
          arguments: JSON.stringify({ command: "printenv LOCAL_TEST_KEY; printenv ANTHROPIC_API_KEY || echo absent" }),
        }],
        finish: "tool-calls",
      },
      { blocks: [{ type: "text", text: "Done." }] },
    )
    const result = await turnlog(["run", "--allow-tools", "print the keys"], { cwd, env })
    expect(result.code, result.stderr).toBe(0)
    const log = logOf(home)
    expect(toolResults(log.lines)).toEqual(["[redacted]\nabsent\n"])
    expectNoKey(log.text, result.stdout, result.stderr)
  })
})

describe("a scripted model that splits a key across text deltas", () => {
  it("the key is caught across the deltas in the log and on stdout", async () => {
    const home = tempDir("secrets-script")
    const script = join(home, "script.jsonl")
    const pieces = ["The key: sk-ant-fa", "ke-0a1b2c3d", "4e5f6a7b, in", " pieces."]
    writeFileSync(
      script,
      `${
        JSON.stringify([
          { type: "block-start", index: 0, blockType: "text" },
          ...pieces.map((text) => ({ type: "text-delta", index: 0, text })),
          { type: "block-end", index: 0, block: { type: "text", text: pieces.join("") } },
          { type: "finish", reason: { kind: "stop" } },
        ])
      }\n`,
    )
    const result = await turnlog(["run", "hello"], {
      cwd: home,
      env: { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: script, ANTHROPIC_API_KEY: ANTHROPIC_KEY },
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe("The key: [redacted], in pieces.\n")
    const log = logOf(home)
    const deltas = log.lines.flatMap((l) => SessionLog.chunksOf(l as unknown as SessionLog.SessionEvent))
      .flatMap((c) => (c.type === "text-delta" ? [c.text] : []))
    expect(deltas).toEqual(["The key: ", "", "[redacted], in", " pieces."])
    expect(log.text).not.toContain(ANTHROPIC_KEY)
  })
})

describe("passEnv in the config", () => {
  it("is a list of variable names; anything else is named", () => {
    expect(Either.getRight(decodeConfig("c.json", '{"passEnv":["AWS_PROFILE","OPENAI_API_KEY"]}'))._tag).toBe("Some")
    const keys =
      "(keys: model, maxTokens, streamIdleTimeoutSeconds, idleReleaseSeconds, providers, permissions, scriptedModel, store, database, passEnv, mcpServers, compaction, system, appendSystem, systemFile, appendSystemFile)"
    const refused = (text: string) => {
      const decoded = decodeConfig("c.json", text)
      return Either.isLeft(decoded) ? decoded.left.message : "accepted"
    }
    expect(refused('{"passEnv":["OK","not a name"]}')).toBe(
      `config file c.json: passEnv.1: expected an environment variable name ${keys}`,
    )
    expect(refused('{"passEnv":[3]}')).toBe(`config file c.json: passEnv.0: expected an environment variable name ${keys}`)
    expect(refused('{"passEnv":"OPENAI_API_KEY"}')).toBe(
      `config file c.json: passEnv: expected a list of environment variable names ${keys}`,
    )
  })
})
