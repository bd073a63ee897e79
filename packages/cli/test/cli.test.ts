import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { turnlog } from "./support/inProcess.js"
import { hasStackTrace, removeTempDirs, tempDir, textScript } from "./support/turnlog.js"

// Each test runs its commands one after another; on a busy machine that is slow, never wrong.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 })
afterAll(removeTempDirs)

const REPLY = (n: number) => `Scripted answer ${n}: turnlog keeps a durable log.`

const sessionIdFrom = (stderr: string): string => {
  const match = /^turnlog: session (\S+)$/m.exec(stderr)
  if (match === null) throw new Error(`no session id in: ${stderr}`)
  return match[1]!
}

describe.concurrent("without a key", () => {
  const home = tempDir("keyless")
  const cwd = tempDir("keyless-cwd")
  const env = { TURNLOG_HOME: home }
  // Each run reads its script afresh: the script's first call answers each one.
  const firstScript = textScript(home, [REPLY(1)], "first.jsonl")
  const secondScript = textScript(home, [REPLY(2)], "second.jsonl")

  it("run with a scripted model answers, says so on stderr, and the session can be listed, shown, examined and continued", async () => {
    const first = await turnlog(["run", "what", "is", "turnlog?"], { cwd, env: { ...env, TURNLOG_SCRIPTED_MODEL: firstScript } })
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toBe(`${REPLY(1)}\n`)
    expect(first.stderr).toContain(`turnlog: scripted model ${firstScript} answers as turnlog/scripted\n`)
    const id = sessionIdFrom(first.stderr)
    expect(existsSync(join(home, "sessions", `${id}.jsonl`))).toBe(true)

    const again = await turnlog(["run", "--continue", "and", "then?"], { cwd, env: { ...env, TURNLOG_SCRIPTED_MODEL: secondScript } })
    expect(again.code, again.stderr).toBe(0)
    expect(sessionIdFrom(again.stderr)).toBe(id)
    expect(again.stdout).toBe(`${REPLY(2)}\n`)

    const listed = await turnlog(["sessions", "--json"], { cwd, env })
    expect(listed.code, listed.stderr).toBe(0)
    const sessions = JSON.parse(listed.stdout) as Array<Record<string, unknown>>
    expect(sessions.map(({ id, cwd, turns, title, status }) => ({ id, cwd, turns, title, status }))).toEqual([
      { id, cwd, turns: 2, title: "what is turnlog?", status: "idle" },
    ])
    const table = await turnlog(["sessions"], { cwd, env })
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+UPDATED\s+TURNS\s+STATUS\s+CWD\s+TITLE$/)
    expect(table.stdout.split("\n")[1]).toMatch(new RegExp(`^${id}  \\S+\\s+2\\s+idle\\s+${cwd}  what is turnlog\\?$`))

    const shown = await turnlog(["show", id], { cwd, env })
    expect(shown.code, shown.stderr).toBe(0)
    const lines = shown.stdout.split("\n")
    expect(lines[0]).toMatch(new RegExp(`^session ${id}  \\(${cwd}, created \\d{4}-\\d\\d-\\d\\dT`))
    // The system prompt is said where it starts (and again only where it changes).
    expect(lines.slice(1).map((l) => l.replace(/^(system prompt: sha256:)[0-9a-f]{12}…/, "$1…"))).toEqual([
      "",
      "── turn 1",
      "user:",
      "  what is turnlog?",
      "system prompt: sha256:… (default)",
      "assistant:",
      `  ${REPLY(1)}`,
      "turn 1 completed",
      "",
      "── turn 2",
      "user:",
      "  and then?",
      "assistant:",
      `  ${REPLY(2)}`,
      "turn 2 completed",
      "",
    ])

    const shownJson = JSON.parse((await turnlog(["show", id, "--json"], { cwd, env })).stdout) as {
      turns: Array<{ items: Array<{ role: string }>; end: { reason: string } }>
    }
    expect(shownJson.turns.map((t) => [t.items.map((i) => i.role), t.end])).toEqual([
      [["user", "system-prompt", "assistant"], { reason: "completed" }],
      [["user", "assistant"], { reason: "completed" }],
    ])

    const doctor = await turnlog(["doctor", id, "--json"], { cwd, env })
    expect(doctor.code, doctor.stderr).toBe(0)
    expect(JSON.parse(doctor.stdout)).toEqual([{
      id,
      cwd,
      events: expect.any(Number),
      messages: [
        { messageId: expect.stringMatching(/^msg_/), route: "turnlog/scripted", replay: "native", adapter: "pi-ai" },
        { messageId: expect.stringMatching(/^msg_/), route: "turnlog/scripted", replay: "native", adapter: "pi-ai" },
      ],
      openTurn: false,
      refused: [],
      compactions: 0,
      systemPrompt: { hash: expect.stringMatching(/^[0-9a-f]{64}$/), sources: ["default"], changes: 0 },
    }])
  })

  it("run with no usable provider is a usage error that says what to set and where, and points at the demo", async () => {
    const home = tempDir("noprovider-home")
    const result = await turnlog(["run", "what", "is", "turnlog?"], { cwd: tempDir("noprovider-cwd"), env: { TURNLOG_HOME: home } })
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: `turnlog: no model to run: no provider key is set and no config file was found at ${join(home, "config.json")}. ` +
        "Set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, DEEPSEEK_API_KEY, MISTRAL_API_KEY " +
        '(or name a model with --model <provider>/<model>), or set "model" in a config file ' +
        "($TURNLOG_CONFIG, --config, or config.json in $TURNLOG_HOME). To try turnlog without a key: turnlog demo\n",
    })
    // No session was made for the refused prompt.
    expect(existsSync(join(home, "sessions"))).toBe(false)
    const configured = join(home, "config.json")
    writeFileSync(configured, JSON.stringify({ permissions: "deny" }))
    const withConfig = await turnlog(["run", "hi"], { cwd: tempDir("noprovider-cwd"), env: { TURNLOG_HOME: home } })
    expect(withConfig.code).toBe(2)
    expect(withConfig.stderr).toContain(`no provider key is set and the config file ${configured} names no "model". `)
  })

  it("a named model without its key fails with one sentence naming the variable to set, and stores no session", async () => {
    const home = tempDir("nokey-home")
    const result = await turnlog(["run", "--model", "anthropic/claude-sonnet-4-5", "hello"], {
      cwd: tempDir("nokey-cwd"),
      env: { TURNLOG_HOME: home },
    })
    expect(result.code, result.stderr).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain(
      "turnlog: no credential for anthropic/claude-sonnet-4-5: set the environment variable ANTHROPIC_API_KEY (MISSING_CREDENTIAL); no session was created\n",
    )
    expect(result.stderr).not.toContain("turnlog: session ")
    expect(hasStackTrace(result.stderr)).toBe(false)
    expect(readdirSync(join(home, "sessions"))).toEqual([])
  })

  it("global options are accepted after the command name", async () => {
    const cwd = tempDir("global-cwd")
    const other = tempDir("other-home")
    const result = await turnlog(["sessions", "--home", other], { cwd, env })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe("no sessions yet (start one with: turnlog run <prompt>)\n")
  })

  it("the SQLite store is chosen with --store sqlite", async () => {
    const cwd = tempDir("sqlite-cwd")
    const sqliteHome = tempDir("sqlite-home")
    const run = await turnlog(["--store", "sqlite", "--home", sqliteHome, "run", "hi"], {
      cwd,
      env: { ...env, TURNLOG_SCRIPTED_MODEL: firstScript },
    })
    expect(run.code, run.stderr).toBe(0)
    expect(existsSync(join(sqliteHome, "sessions.db"))).toBe(true)
    const listed = await turnlog(["sessions", "--store", "sqlite", "--home", sqliteHome, "--json"], { cwd, env })
    expect((JSON.parse(listed.stdout) as Array<{ title: string }>).map((s) => s.title)).toEqual(["hi"])
  })
})

describe.concurrent("usage and config errors exit 2 and say what to fix", () => {
  const home = tempDir("usage")
  const cwd = tempDir("usage-cwd")
  const env = { TURNLOG_HOME: home }
  const config = (name: string, text: string) => {
    const file = join(home, name)
    writeFileSync(file, text)
    return file
  }

  it.each([
    [["run", "--max-tokens", "many", "hi"], "turnlog: --max-tokens takes a whole number, not 'many'\n"],
    [["--store", "mongo", "sessions"], "turnlog: --store takes jsonl, sqlite or postgres, not 'mongo'\n"],
    [["--store", "postgres", "sessions"], "turnlog: the postgres store needs a database: set TURNLOG_DATABASE_URL or database.url in the config"],
    [["run", "--model", "claude", "hi"], 'turnlog: --model "claude" is not a model route: expected "<provider>/<model>"'],
    [["run", "--session", "x", "--continue", "hi"], "turnlog: --session and --continue cannot be used together"],
    [["teleport"], "turnlog: unknown command teleport\n"],
    [[], "turnlog: choose a command: chat, run, acp, sessions, show, doctor, models, compact, export, import, delete, fork, prune, view or demo"],
  ])("turnlog %j", async (args, message) => {
    const result = await turnlog(args, { cwd, env })
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(message)
    expect(hasStackTrace(result.stderr)).toBe(false)
  })

  it("a config file that does not exist is named", async () => {
    const result = await turnlog(["--config", join(home, "nope.json"), "sessions"], { cwd, env })
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toBe(`turnlog: config file ${join(home, "nope.json")} (from --config) does not exist\n`)
  })

  it("a config file that is not JSON is named", async () => {
    const file = config("broken.json", "{ model: ")
    const result = await turnlog(["run", "hi"], { cwd, env: { ...env, TURNLOG_CONFIG: file } })
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toMatch(new RegExp(`^turnlog: config file ${file} is not valid JSON: `))
  })

  it("each bad field of the config is named", async () => {
    const file = config("fields.json", JSON.stringify({ model: "gpt", maxTokens: -1, permissions: "sometimes", colour: "red" }))
    const result = await turnlog(["--config", file, "run", "hi"], { cwd, env })
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(`turnlog: config file ${file}: `)
    expect(result.stderr).toContain('model: expected "<provider>/<model>"')
    expect(result.stderr).toContain("maxTokens: expected a positive integer")
    expect(result.stderr).toContain('permissions: expected "ask", "allow" or "deny"')
    expect(result.stderr).toContain("colour: ")
  })

  it("a mistake inside providers is refused even when no provider answers (the demo model, a script)", async () => {
    const file = config(
      "providers-unused.json",
      JSON.stringify({
        providers: {
          local: { api: "openai-completions", baseUrl: "http://127.0.0.1:1/v1", apiKeyEnv: "K", models: [{ id: "m" }], modles: [] },
        },
      }),
    )
    const script = config("script.jsonl", JSON.stringify([{ type: "finish", reason: { kind: "stop" } }]) + "\n")
    for (const extra of [{}, { TURNLOG_SCRIPTED_MODEL: script }]) {
      const result = await turnlog(["--config", file, "run", "hi"], { cwd, env: { ...env, ...extra } })
      expect(result.code, result.stderr).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderr).toContain(`turnlog: config file ${file}: `)
      expect(result.stderr).toContain("modles")
    }
  })

  it("a model route no provider serves is a usage error, said before a session is made", async () => {
    const file = config("unknown-model.json", JSON.stringify({ model: "nosuch/model" }))
    const cases = [
      [["--config", file, "run", "hi"], "turnlog: model nosuch/model: unknown provider nosuch (route nosuch/model) (see: turnlog models)\n"],
      [
        ["run", "--model", "anthropic/no-such-model", "hi"],
        "turnlog: model anthropic/no-such-model: provider anthropic has no model no-such-model (see: turnlog models)\n",
      ],
      [["--config", file, "acp"], "turnlog: model nosuch/model: unknown provider nosuch (route nosuch/model) (see: turnlog models)\n"],
    ] as const
    for (const [args, message] of cases) {
      const home = tempDir("unknown-route")
      const result = await turnlog(args, { cwd, env: { TURNLOG_HOME: home } })
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 2, stdout: "", stderr: message })
      expect(existsSync(join(home, "sessions")) ? readdirSync(join(home, "sessions")) : []).toEqual([])
    }
  })

  it("a bad custom provider is named before acp starts serving", async () => {
    const file = config(
      "provider.json",
      JSON.stringify({
        model: "local/m",
        providers: { local: { api: "smoke-signals", baseUrl: "http://127.0.0.1:1", apiKeyEnv: "K", models: [{ id: "m" }] } },
      }),
    )
    const result = await turnlog(["--config", file, "acp"], { cwd, env })
    expect(result.code, result.stderr).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain("providers.local.api")
  })

  it("an unknown session is a failure (exit 1) that says how to list sessions", async () => {
    const result = await turnlog(["show", "20250101T000000-00000000"], { cwd, env })
    expect(result.code, result.stderr).toBe(1)
    expect(result.stderr).toBe(
      "turnlog: session 20250101T000000-00000000 not found (list sessions with: turnlog sessions)\n",
    )
  })
})

describe("against a provider (the loopback server, declared as a custom provider)", () => {
  let server: Loopback.Server
  const home = tempDir("loopback")
  const cwd = tempDir("loopback-cwd")
  let env: Record<string, string>

  beforeAll(async () => {
    server = await Loopback.start()
    const config = {
      model: "local/test-model",
      providers: {
        local: {
          api: "openai-completions",
          baseUrl: server.baseUrl("openai-completions"),
          apiKeyEnv: "LOCAL_TEST_KEY",
          models: [{ id: "test-model" }],
        },
      },
    }
    writeFileSync(join(home, "config.json"), JSON.stringify(config))
    env = { TURNLOG_HOME: home, LOCAL_TEST_KEY: "sk-local-123456" }
  })
  afterAll(() => server.close())

  it("streams the answer, and a cut-off tool call never runs nor reaches the next request", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "Hello from the loopback." }] })
    const first = await turnlog(["run", "say hello"], { cwd, env })
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toBe("Hello from the loopback.\n")
    const [request] = server.requests()
    expect(request!.headers.authorization).toBe("Bearer sk-local-123456")
    expect(request!.model).toBe("test-model")

    server.enqueue({
      blocks: [
        { type: "text", text: "Writing it now." },
        { type: "tool-call", id: "call_1", name: "write_file", arguments: '{"path":"out.txt","con', complete: false },
      ],
      finish: "max-tokens",
    })
    const cut = await turnlog(["run", "--continue", "--allow-tools", "write out.txt"], { cwd, env })
    expect(cut.code, cut.stderr).toBe(0)
    expect(cut.stdout).toBe("Writing it now.\n")
    expect(cut.stderr).toContain("turnlog: the answer stopped at the output limit; any unfinished tool call was dropped.")
    expect(existsSync(join(cwd, "out.txt"))).toBe(false)

    server.enqueue({ blocks: [{ type: "text", text: "Continuing." }] })
    const next = await turnlog(["run", "--continue", "go on"], { cwd, env })
    expect(next.code, next.stderr).toBe(0)
    const body = server.requests()[2]!.body as { messages: Array<{ role: string; content: unknown; tool_calls?: unknown }> }
    const assistants = body.messages.filter((m) => m.role === "assistant")
    expect(assistants.map((m) => [m.content, m.tool_calls])).toEqual([
      ["Hello from the loopback.", undefined],
      ["Writing it now.", undefined],
    ])
    expect(JSON.stringify(body)).not.toContain('write_file","arguments')
  })

  it("a write is denied without a terminal to ask, and allowed with --allow-tools", async () => {
    const call = { type: "tool-call" as const, id: "call_w", name: "write_file", arguments: '{"path":"hello.txt","content":"hi\\n"}' }
    server.enqueue({ blocks: [call], finish: "tool-calls" }, { blocks: [{ type: "text", text: "Could not write." }] })
    const denied = await turnlog(["run", "write hello.txt"], { cwd, env })
    expect(denied.code, denied.stderr).toBe(0)
    expect(denied.stderr).toContain("turnlog: denied Write hello.txt (no terminal to ask; pass --allow-tools")
    expect(denied.stderr).toContain("turnlog: tool write_file failed: permission denied")
    expect(existsSync(join(cwd, "hello.txt"))).toBe(false)

    server.enqueue({ blocks: [call], finish: "tool-calls" }, { blocks: [{ type: "text", text: "Written." }] })
    const allowed = await turnlog(["run", "--allow-tools", "write hello.txt"], { cwd, env })
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(allowed.stdout).toBe("Written.\n")
    expect(readFileSync(join(cwd, "hello.txt"), "utf8")).toBe("hi\n")
  })

  it("a provider that stops sending is abandoned after streamIdleTimeoutSeconds and asked again", async () => {
    const file = join(home, "quick-idle.json")
    const settings = JSON.parse(readFileSync(join(home, "config.json"), "utf8")) as Record<string, unknown>
    // Two seconds: long enough that a busy machine never takes an answering server for a quiet one.
    writeFileSync(file, JSON.stringify({ ...settings, streamIdleTimeoutSeconds: 2 }))
    const before = server.requests().length
    // The first request is answered with headers and then nothing, the connection held open.
    server.enqueue({ blocks: [{ type: "text", text: "never sent" }], stallAfterEvents: 0 }, {
      blocks: [{ type: "text", text: "After the stall." }],
    })
    const result = await turnlog(["--config", file, "run", "are you there?"], { cwd, env })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe("After the stall.\n")
    expect(result.stderr).toContain("turnlog: local sent nothing for 2 s; the request was abandoned (TIMEOUT); retry 2 in ")
    // The abandoned request was closed by the client, not left open.
    expect((await server.settled(before)).outcome).toBe("client-closed")
    expect(server.requests()).toHaveLength(before + 2)
  })

  it("a refused key ends the run naming the variable it was read from", async () => {
    server.enqueue({ status: 401 })
    const result = await turnlog(["run", "who am I"], { cwd, env })
    expect(result.code, result.stderr).toBe(1)
    expect(result.stderr).toContain(
      "turnlog: the turn failed: 401 invalid_request_error: Incorrect API key provided: sk-loop*****back. You can find your API key at " +
        "https://platform.openai.com/account/api-keys. (AUTH); check the key in LOCAL_TEST_KEY\n",
    )
  })

  it("a provider error ends the run with exit 1 and the provider's reason, read out of its JSON body", async () => {
    server.enqueue({ status: 400, message: "the request is malformed" })
    const result = await turnlog(["run", "fail please"], { cwd, env })
    expect(result.code, result.stderr).toBe(1)
    // The provider's JSON body read for the person: its status, the error's kind and its sentence.
    expect(result.stderr).toContain("turnlog: the turn failed: 400 invalid_request_error: the request is malformed (INVALID_REQUEST)\n")
    expect(hasStackTrace(result.stderr)).toBe(false)
  })
})

const TORN = '{"seq":5,"time":"2025-01-01T00:00:00.000Z","ty'

describe("doctor", () => {
  const home = tempDir("doctor")
  const cwd = tempDir("doctor-cwd")
  const t = "2025-01-01T00:00:00.000Z"
  const header = (id: string) => JSON.stringify({ type: "session", version: 1, id, createdAt: t, cwd })
  const legacy = [
    header("20250101T000000-0000beef"),
    JSON.stringify({ seq: 1, time: t, type: "turn/start", data: {} }),
    JSON.stringify({
      seq: 2,
      time: t,
      type: "user/message",
      data: { message: { id: "msg_00000000000000000001", role: "user", content: [{ type: "text", text: "hi" }], source: { kind: "user" } } },
    }),
    JSON.stringify({
      seq: 3,
      time: t,
      type: "assistant/message",
      data: {
        message: {
          id: "msg_00000000000000000002",
          role: "assistant",
          content: [{ type: "text", text: "hello" }],
          source: {
            kind: "model",
            provider: "anthropic",
            model: "claude-3-7-sonnet-latest",
            replayState: {
              kind: "pi-ai",
              version: 1,
              api: "anthropic-messages",
              provider: "anthropic",
              model: "claude-3-7-sonnet-latest",
              stopReason: "stop",
              blocks: [{ type: "text" }],
            },
          },
        },
        finish: { kind: "stop" },
      },
    }),
    JSON.stringify({ seq: 4, time: t, type: "turn/start", data: {} }),
  ].join("\n") + `\n${TORN}`

  beforeAll(() => {
    mkdirSync(join(home, "sessions"), { recursive: true })
    writeFileSync(join(home, "sessions", "20250101T000000-0000beef.jsonl"), legacy)
  })

  it("reports degrading replay state, a torn tail and an open turn without changing the file", async () => {
    const result = await turnlog(["doctor"], { cwd, env: { TURNLOG_HOME: home } })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe([
      `session 20250101T000000-0000beef (${cwd}): 4 events, 1 assistant message: 0 replay natively, 1 degrade, 0 without replay state`,
      "  degrades msg_00000000000000000002 (anthropic/claude-3-7-sonnet-latest): legacy flat version-1 pi-ai state",
      `  torn tail: ${Buffer.byteLength(TORN)} bytes at line 6 (cut off and kept aside when the session is next opened)`,
      "  open turn: the last turn has no end (closed as interrupted when the session is next opened)",
      "",
    ].join("\n"))
    expect(readFileSync(join(home, "sessions", "20250101T000000-0000beef.jsonl"), "utf8")).toBe(legacy)
  })
})

describe("demo", () => {
  it("runs the keyless showcase with every moment labelled, then doctor's summary", async () => {
    const home = tempDir("demo")
    const result = await turnlog(["demo"], { cwd: home, env: { TURNLOG_HOME: home } })
    expect(result.code, result.stderr).toBe(0)
    const labels = [...result.stdout.matchAll(/» \[([a-z ]+)\] (.*)/g)].map((m) => [m[1], m[2]])
    expect(labels).toEqual([
      [
        "cut off",
        "the turn ended max-tokens; the model had streamed a tool call it never finished. Kept blocks: reasoning, text; tool calls logged or run: 0.",
      ],
      ["pruned", "the raw finish chunk's envelope has 3 block entries; the stored message's has 2, one per kept block."],
      ["replayed natively", "the cut-off message went back in the continuation's request natively, with its pruned envelope; diagnostics during the turn: 0."],
      ["tool ran", "the continuation's read_file call was logged, allowed, run, and its result stored (1 result)."],
      [
        "degraded",
        expect.stringMatching(
          /^INVALID_REPLAY_STATE: session \S+, message msg_\w+ \(anthropic\/claude-3-7-sonnet-latest -> turnlog\/demo\) sent as provider-neutral content: legacy flat version-1 pi-ai state$/,
        ),
      ],
      ["continued", "1 message(s) went as provider-neutral content and the turn still ended completed."],
    ])
    expect(result.stdout).toContain("━━ turnlog doctor")
    expect(result.stdout).toMatch(/2 assistant messages: 1 replay natively, 1 degrade, 0 without replay state/)
    expect(result.stdout).toMatch(/3 assistant messages: 3 replay natively, 0 degrade, 0 without replay state/)
    const dir = /^directory: (.+)$/m.exec(result.stdout)![1]!
    expect(dir.startsWith(join(home, "demo"))).toBe(true)
    expect(readFileSync(join(dir, "workspace", "notes.txt"), "utf8")).toContain("append-only log")
    // Each session as a page beside them: the cut in the first, the degraded message in the second.
    const pages = [...result.stdout.matchAll(/^ {2}(\/.+\.html)$/gm)].map((m) => m[1]!)
    expect(pages.map((page) => dirname(page))).toEqual([dir, dir])
    const [cut, legacy] = pages.map((page) => readFileSync(page, "utf8"))
    expect(cut).toContain('<div class="who">cut at the output limit</div>')
    expect(legacy).toContain('<div class="who">INVALID_REPLAY_STATE</div>')
  })
})

describe("one damaged log among good ones", () => {
  const home = tempDir("damaged")
  const cwd = tempDir("damaged-cwd")
  const env = { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: textScript(home, [REPLY(1)]) }

  it("sessions and doctor show the good session and name the damaged one; run --continue says what it left out", async () => {
    const first = await turnlog(["run", "hello"], { cwd, env })
    expect(first.code, first.stderr).toBe(0)
    const id = sessionIdFrom(first.stderr)
    const empty = join(home, "sessions", "empty.jsonl")
    writeFileSync(empty, "")

    const listed = await turnlog(["sessions", "--json"], { cwd, env })
    expect(listed.code).toBe(1)
    expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((s) => s.id)).toEqual([id])
    expect(listed.stderr).toBe(
      `turnlog: session empty cannot be read: ${empty}:1: the file is empty\n` +
        "turnlog: 1 session(s) cannot be read (see: turnlog doctor --all)\n",
    )

    const doctor = await turnlog(["doctor", "--all"], { cwd, env })
    expect(doctor.code).toBe(1)
    expect(doctor.stdout.split("\n").slice(0, 2)).toEqual([
      `session empty: cannot be read: ${empty}:1: the file is empty`,
      `session ${id} (${cwd}): 6 events, 1 assistant message: 1 replay natively, 0 degrade, 0 without replay state`,
    ])

    const again = await turnlog(["run", "--continue", "more"], { cwd, env })
    expect(again.code, again.stderr).toBe(0)
    expect(sessionIdFrom(again.stderr)).toBe(id)
    expect(again.stderr).toContain(
      `turnlog: session empty cannot be read: ${empty}:1: the file is empty\n` +
        "turnlog: 1 stored session(s) cannot be read and were not considered (see: turnlog doctor --all)\n",
    )
    // Nothing was changed or removed.
    expect(readFileSync(empty, "utf8")).toBe("")
  })
})
