// The interactive session in a real terminal (tmux): a person types a prompt
// and reads the answer, cancels a slow one with Ctrl-C and gets the prompt
// back, and leaves with /quit. The log then holds a completed and a cancelled
// turn written as `turnlog run` writes them.
import { execFile, execFileSync, spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { BIN, cleanEnv, logLines, removeTempDirs, sessionIds, tempDir, turnlog } from "./support/turnlog.js"

afterAll(removeTempDirs)

const hasTmux = (() => {
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()
if (!hasTmux && process.env.TURNLOG_REQUIRE_TMUX === undefined) {
  process.stderr.write("Chat.e2e: skipped: tmux is not installed (set TURNLOG_REQUIRE_TMUX=1 to fail instead)\n")
}

/** A text answer streamed in pieces of eight characters, `delayMs` apart. */
const call = (text: string, delayMs?: number) => {
  const pieces = text.match(/[\s\S]{1,8}/g) ?? []
  const chunks = [
    { type: "block-start", index: 0, blockType: "text" },
    ...pieces.map((t) => ({ type: "text-delta", index: 0, text: t })),
    { type: "block-end", index: 0, block: { type: "text", text } },
    { type: "finish", reason: { kind: "stop" } },
  ]
  return JSON.stringify(delayMs === undefined ? { chunks } : { chunks, delayMs })
}

/** 200 lines, a piece every 50 ms: far longer than a test waits. */
const SLOW = Array.from({ length: 200 }, (_, i) => `line ${i}\n`).join("")

const script = (dir: string): string => {
  const file = join(dir, "model.jsonl")
  writeFileSync(file, [call("Hello, **world**: `ok`."), call(SLOW, 50)].join("\n") + "\n")
  return file
}

const tmux = (socket: string, ...args: ReadonlyArray<string>): Promise<string> =>
  new Promise((resolve, reject) => execFile("tmux", ["-L", socket, ...args], (error, stdout) => (error === null ? resolve(stdout) : reject(error))))

/** A terminal of 100 columns running `turnlog <args>` in `cwd`; its exit code is printed when it ends. */
const terminal = async (cwd: string, env: Record<string, string>, args: ReadonlyArray<string> = ["chat"]) => {
  const socket = `turnlog-chat-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  const launcher = join(cwd, "..", `${socket}.sh`)
  const exports = Object.entries({ ...cleanEnv(), ...env, TERM: "xterm-256color" })
    .map(([k, v]) => `export ${k}='${v.replace(/'/g, `'\\''`)}'`)
  writeFileSync(launcher, [...exports, `'${process.execPath}' '${BIN}' ${args.join(" ")}`, `echo "[exit $?]"`, "sleep 600"].join("\n") + "\n")
  await tmux(socket, "new-session", "-d", "-x", "100", "-y", "40", "-c", cwd, `sh '${launcher}'`)
  // Rows joined where they wrapped, each without the blanks that fill it out.
  const screen = () => tmux(socket, "capture-pane", "-p", "-J", "-S", "-200").then((text) => text.split("\n").map((l) => l.trimEnd()).join("\n"))
  /** Resolves with the screen once it shows `what` (looked at every 100 ms). */
  const until = async (what: string | RegExp, timeoutMs = 20_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const shown = await screen()
      if (typeof what === "string" ? shown.includes(what) : what.test(shown)) return shown
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${String(what)}; it shows:\n${shown}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return {
    socket,
    screen,
    until,
    type: (text: string) => tmux(socket, "send-keys", "-l", text),
    /** Types /quit and Enter; resolves once the process has ended with exit 0. */
    quit: async (): Promise<string> => {
      await tmux(socket, "send-keys", "-l", "/quit")
      await tmux(socket, "send-keys", "Enter")
      return until("[exit 0]")
    },
    key: (key: string) => tmux(socket, "send-keys", key),
    close: () => tmux(socket, "kill-server").catch(() => ""),
  }
}

/** A session's turns as the log holds them, without what differs from one run to the next (ids, times, how much streamed). */
const turnsOf = (home: string, id: string) => {
  const events = logLines(home, id).slice(1) as Array<{ type: string; data: any }>
  const turns: Array<Array<unknown>> = []
  for (const e of events) {
    if (e.type === "turn/start") turns.push([])
    const shape = e.type === "turn/end"
      ? { type: e.type, data: e.data }
      : e.type === "assistant/message"
      ? { type: e.type, finish: e.data.finish, interrupted: e.data.interrupted }
      : e.type === "request/start"
      ? { type: e.type, data: e.data }
      : e.type === "user/message"
      ? { type: e.type, content: e.data.message.content }
      : { type: e.type }
    turns.at(-1)!.push(shape)
  }
  return turns
}

describe.skipIf(!hasTmux && process.env.TURNLOG_REQUIRE_TMUX === undefined)("turnlog chat in a terminal", () => {
  it("answers, cancels a slow answer on Ctrl-C and takes the next prompt, leaves on /quit; the log is run's", async () => {
    const dir = tempDir("chat")
    const home = join(dir, "home")
    const cwd = join(dir, "work")
    execFileSync("mkdir", ["-p", home, cwd])
    const model = script(dir)
    const t = await terminal(cwd, { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: model })
    try {
      await t.until("/help for commands")
      await t.type("say hello")
      await t.key("Enter")
      const answered = await t.until("Hello, world: ok.")
      expect(answered).toContain(" › say hello\n Hello, world: ok.\n")
      expect(answered).not.toContain("**")

      // While the chat holds the session, another process may not write it, and is told who holds it.
      const [held] = sessionIds(home)
      const other = await turnlog(["run", "--session", held!, "me too"], {
        cwd,
        env: { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: model },
      })
      expect(other.code).toBe(1)
      expect(other.stderr).toMatch(
        new RegExp(`^turnlog: session ${held} is open for writing by turnlog chat \\(pid \\d+\\) on host \\S+\n$`, "m"),
      )

      await t.type("go slow")
      await t.key("Enter")
      await t.until("line 3\n")
      await t.key("C-c")
      const cancelled = await t.until("the turn was cancelled")
      expect(cancelled).toMatch(/ › go slow\n line 0\n line 1\n line 2\n line 3\n[\s\S]* the turn was cancelled\n/)
      expect(cancelled).not.toContain("line 199")

      // The prompt is back: a command is taken at once.
      await t.type("/sessions")
      await t.key("Enter")
      await t.until(/TURNS\s+STATUS/)
      await t.quit()
    } finally {
      await t.close()
    }

    const [id] = sessionIds(home)
    // The same two turns through `run`: the first completed, the second stopped by Ctrl-C (SIGINT).
    const runHome = join(dir, "run-home")
    const env = { ...cleanEnv(), TURNLOG_HOME: runHome, TURNLOG_SCRIPTED_MODEL: model }
    execFileSync(process.execPath, [BIN, "run", "say hello"], { cwd, env, stdio: "ignore" })
    // A new process plays the script from its first call: this one has only the slow answer.
    const slow = join(dir, "slow.jsonl")
    writeFileSync(slow, call(SLOW, 50) + "\n")
    await new Promise<void>((resolve) => {
      const child = spawn(process.execPath, [BIN, "run", "--continue", "go slow"], {
        cwd,
        env: { ...env, TURNLOG_SCRIPTED_MODEL: slow },
        stdio: ["ignore", "pipe", "ignore"],
      })
      let sent = false
      let streamed = ""
      child.stdout.on("data", (data: Buffer) => {
        streamed += data.toString()
        if (!sent && streamed.includes("line 3")) {
          sent = true
          child.kill("SIGINT")
        }
      })
      child.on("exit", () => resolve())
    })
    const [runId] = sessionIds(runHome)
    const turns = turnsOf(home, id!)
    expect(turns).toEqual(turnsOf(runHome, runId!))
    expect(turns.map((turn) => turn.at(-1))).toEqual([
      { type: "turn/end", data: { reason: "completed" } },
      { type: "turn/end", data: { reason: "cancelled" } },
    ])
  })

  it("turnlog alone on a terminal opens the session; the terminal closing mid-answer closes the turn as cancelled", async () => {
    const dir = tempDir("chat-hup")
    const home = join(dir, "home")
    const cwd = join(dir, "work")
    execFileSync("mkdir", ["-p", home, cwd])
    const slow = join(dir, "slow.jsonl")
    writeFileSync(slow, call(SLOW, 50) + "\n")
    const t = await terminal(cwd, { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: slow }, [])
    try {
      await t.until("/help for commands")
      await t.type("go slow")
      await t.key("Enter")
      await t.until("line 3\n")
    } finally {
      // The terminal goes away: the process gets SIGHUP.
      await t.close()
    }
    const [id] = sessionIds(home)
    const deadline = Date.now() + 20_000
    let last: { type: string; data: unknown } | undefined
    while (Date.now() < deadline) {
      last = logLines(home, id!).at(-1)
      if (last?.type === "turn/end") break
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(last).toEqual(expect.objectContaining({ type: "turn/end", data: { reason: "cancelled" } }))
    const message = logLines(home, id!).find((e: { type: string }) => e.type === "assistant/message")
    expect(message.data.interrupted).toBe(true)
    expect(message.data.message.content[0].text).toMatch(/^line 0\nline 1\nline 2\nline 3\n/)
  })

  it("SIGTERM mid-answer closes the turn as cancelled and ends the process with 143", async () => {
    const dir = tempDir("chat-term")
    const home = join(dir, "home")
    const cwd = join(dir, "work")
    execFileSync("mkdir", ["-p", home, cwd])
    const slow = join(dir, "slow.jsonl")
    writeFileSync(slow, call(SLOW, 50) + "\n")
    const t = await terminal(cwd, { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: slow })
    try {
      await t.until("/help for commands")
      await t.type("go slow")
      await t.key("Enter")
      await t.until("line 3\n")
      const pid = execFileSync("tmux", ["-L", t.socket, "list-panes", "-F", "#{pane_pid}"]).toString().trim()
      // The pane runs the launcher's shell; turnlog is its child.
      const child = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ")[0]!
      process.kill(Number(child), "SIGTERM")
      await t.until("[exit 143]")
    } finally {
      await t.close()
    }
    const [id] = sessionIds(home)
    const events = logLines(home, id!)
    expect(events.at(-1)).toEqual(expect.objectContaining({ type: "turn/end", data: { reason: "cancelled" } }))
    expect(events.find((e: { type: string }) => e.type === "assistant/message").data.interrupted).toBe(true)
  })
})

describe.skipIf(!hasTmux && process.env.TURNLOG_REQUIRE_TMUX === undefined)("turnlog chat: what a session keeps", () => {
  it("keeps the session's model as run keeps it: the footer names it and the requests go to it", async () => {
    const server = await Loopback.start()
    try {
      const dir = tempDir("chat-kept")
      const home = join(dir, "home")
      const cwd = join(dir, "work")
      execFileSync("mkdir", ["-p", home, cwd])
      const provider = (api: Loopback.Api, id: string) => ({
        api,
        baseUrl: server.baseUrl(api),
        apiKeyEnv: "LOOP_TEST_KEY",
        models: [{ id, contextWindow: 200000, maxTokens: 8192 }],
      })
      writeFileSync(
        join(home, "config.json"),
        JSON.stringify({
          model: "loop/m",
          providers: { loop: provider("anthropic-messages", "m"), other: provider("openai-completions", "big") },
        }),
      )
      const env = { TURNLOG_HOME: home, LOOP_TEST_KEY: "sk-model-0123456789" }
      server.enqueue({ blocks: [{ type: "text", text: "one" }] })
      const first = await turnlog(["run", "--model", "other/big", "first"], { cwd, env })
      expect(first.code, first.stderr).toBe(0)
      server.enqueue({ blocks: [{ type: "text", text: "Still the big one." }] })
      const t = await terminal(cwd, env, ["chat", "--continue"])
      try {
        const opened = await t.until("/help for commands")
        expect(opened.split("\n").filter((l) => l !== "").at(-1)).toMatch(/^ other\/big · /)
        await t.type("second")
        await t.key("Enter")
        await t.until("Still the big one.")
        await t.quit()
      } finally {
        await t.close()
      }
      expect(server.requests().map((r) => `${r.api} ${r.model}`)).toEqual(["openai-completions big", "openai-completions big"])
    } finally {
      await server.close()
    }
  })

  it("chat --mode and --reasoning open the session in them: the footer says so and the log keeps them for run", async () => {
    const dir = tempDir("chat-mode")
    const home = join(dir, "home")
    const cwd = join(dir, "work")
    execFileSync("mkdir", ["-p", home, cwd])
    const t = await terminal(cwd, { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: script(dir) }, ["chat", "--mode", "read-only", "--reasoning", "low"])
    try {
      const opened = await t.until("/help for commands")
      expect(opened.split("\n").filter((l) => l !== "").at(-1)).toMatch(/^ turnlog\/scripted · reasoning low · read-only · \/help for commands/)
      await t.quit()
    } finally {
      await t.close()
    }
    const [id] = sessionIds(home)
    const settings = logLines(home, id!).slice(1).filter((e: any) => e.type === "session/mode" || e.type === "session/reasoning")
      .map((e: any) => e.data)
    expect(settings).toEqual([{ mode: "read-only" }, { effort: "low" }])
  })
})
