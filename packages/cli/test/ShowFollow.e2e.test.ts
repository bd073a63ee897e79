// `turnlog show --follow` as a user runs it: the real binary, following a
// session while another `turnlog run` process writes a turn to it, on each
// store. It prints the transcript so far, then the other process's turn as it
// is flushed (the prompt while the answer is still streaming), and ends by
// itself when that turn ends, having printed exactly what `show` prints then.
// On PostgreSQL the follower's listening connection is ended by
// `pg_terminate_backend` mid-follow (found by its application_name, so other
// tests on the server are untouched); it reconnects and misses nothing.
import { type ChildProcess, spawn } from "node:child_process"
import { hostname } from "node:os"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it, vi } from "vitest"
import { admin, schemaUrl, skipPostgres } from "./support/postgres.js"
import { BIN, cleanEnv, removeTempDirs, tempDir, textScript, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 })
afterAll(removeTempDirs)

/** A running command whose output is collected, and a way to wait for text in it. */
const started = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string>) => {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...cleanEnv(), ...env } })
  let stdout = ""
  let stderr = ""
  const waiters: Array<() => void> = []
  const wake = () => waiters.splice(0).forEach((f) => f())
  child.stdout.on("data", (data: Buffer) => void (stdout += data.toString(), wake()))
  child.stderr.on("data", (data: Buffer) => void (stderr += data.toString(), wake()))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => (wake(), resolve(code))))
  const waitFor = async (text: string, what = "stdout") => {
    const deadline = Date.now() + 120_000
    while (!(what === "stdout" ? stdout : stderr).includes(text)) {
      if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before printing ${JSON.stringify(text)}:\n${stdout}\n${stderr}`)
      if (Date.now() > deadline) throw new Error(`no ${JSON.stringify(text)} in:\n${stdout}\n${stderr}`)
      await new Promise<void>((resolve) => {
        waiters.push(resolve)
        setTimeout(resolve, 1000)
      })
    }
  }
  return { child, exited, waitFor, stdout: () => stdout, stderr: () => stderr }
}

const stop = async (child: ChildProcess, exited: Promise<unknown>) => {
  if (child.exitCode === null) child.kill("SIGKILL")
  await exited
}

/** A scripted answer that streams a first line and then stays open, as a slow model does. */
const stallScript = (dir: string): string => {
  const file = join(dir, "stall.jsonl")
  const chunks = [
    { type: "block-start", index: 0, blockType: "text" },
    { type: "text-delta", index: 0, text: "working on it\n" },
  ]
  writeFileSync(file, JSON.stringify({ chunks, stall: true }) + "\n")
  return file
}

const followScenario = async (
  store: "jsonl" | "sqlite" | "postgres",
  env: Record<string, string>,
  whileFollowing?: (follower: ChildProcess) => Promise<void>,
) => {
  const home = tempDir(`follow-${store}`)
  const cwd = tempDir(`follow-${store}-cwd`)
  const base = { TURNLOG_HOME: home, ...env }
  const first = await turnlog(["--store", store, "run", "first question"], {
    cwd,
    env: { ...base, TURNLOG_SCRIPTED_MODEL: textScript(home, ["first answer"]) },
  })
  expect(first.code, first.stderr).toBe(0)
  const id = /^turnlog: session (\S+)$/m.exec(first.stderr)![1]!

  const follower = started(["--store", store, "show", "--follow", id], cwd, base)
  let writer: ReturnType<typeof started> | undefined
  try {
    await follower.waitFor("turn 1 completed\n")
    await whileFollowing?.(follower.child)
    // Another process starts a turn whose answer is still streaming: its prompt is printed while it runs.
    writer = started(["--store", store, "run", "--session", id, "second question"], cwd, {
      ...base,
      TURNLOG_SCRIPTED_MODEL: stallScript(home),
    })
    await writer.waitFor("working on it")
    await follower.waitFor("── turn 2\nuser:\n  second question\n")
    expect(writer.child.exitCode).toBe(null)
    expect(follower.child.exitCode).toBe(null)
    // The writer is stopped: its turn ends (cancelled, with what it showed), and the follower with it.
    writer.child.kill("SIGINT")
    await writer.exited
    expect(await follower.exited).toBe(0)
    expect(follower.stderr()).toBe("")
    const shown = await turnlog(["--store", store, "show", id], { cwd, env: base })
    expect(shown.code, shown.stderr).toBe(0)
    expect(follower.stdout()).toBe(shown.stdout)
    // The system prompt is said once: the second turn's request was sent the same one.
    expect(shown.stdout.split("\n").slice(1).map((l) => l.replace(/^(system prompt: sha256:)[0-9a-f]{12}…/, "$1…"))).toStrictEqual([
      "",
      "── turn 1",
      "user:",
      "  first question",
      "system prompt: sha256:… (default)",
      "assistant:",
      "  first answer",
      "turn 1 completed",
      "",
      "── turn 2",
      "user:",
      "  second question",
      "assistant (interrupted):",
      "  working on it",
      "  ",
      "turn 2 cancelled",
      "",
    ])
  } finally {
    await stop(follower.child, follower.exited)
    if (writer !== undefined) await stop(writer.child, writer.exited)
  }
}

describe("show --follow", () => {
  it("jsonl: prints another process's turn as it is flushed and ends when that turn ends", async () => {
    await followScenario("jsonl", {})
  })

  it("sqlite: prints another process's turn as it is flushed and ends when that turn ends", async () => {
    await followScenario("sqlite", {})
  })

  it("--forever keeps following after a turn ends, until interrupted (Ctrl-C ends it quietly)", async () => {
    const home = tempDir("forever")
    const cwd = tempDir("forever-cwd")
    const base = { TURNLOG_HOME: home }
    const first = await turnlog(["run", "one"], { cwd, env: { ...base, TURNLOG_SCRIPTED_MODEL: textScript(home, ["1"]) } })
    const id = /^turnlog: session (\S+)$/m.exec(first.stderr)![1]!
    const follower = started(["show", "--follow", "--forever", id], cwd, base)
    try {
      await follower.waitFor("turn 1 completed\n")
      for (const [n, prompt] of [[2, "two"], [3, "three"]] as const) {
        const next = await turnlog(["run", "--session", id, prompt], {
          cwd,
          env: { ...base, TURNLOG_SCRIPTED_MODEL: textScript(home, [prompt.toUpperCase()], `${prompt}.jsonl`) },
        })
        expect(next.code, next.stderr).toBe(0)
        await follower.waitFor(`turn ${n} completed\n`)
      }
      expect(follower.child.exitCode).toBe(null)
      follower.child.kill("SIGINT")
      expect(await follower.exited).toBe(130)
      expect(follower.stderr()).toBe("")
      expect(follower.stdout()).toBe((await turnlog(["show", id], { cwd, env: base })).stdout)
    } finally {
      await stop(follower.child, follower.exited)
    }
  })

  describe.skipIf(skipPostgres)("postgres", () => {
    const schema = `turnlog_follow_test_${process.pid}`
    const url = schemaUrl(schema)

    it("prints another process's turn as it is flushed, after its listening connection was ended and made again", async () => {
      await admin(`CREATE SCHEMA ${schema}`)
      try {
        await followScenario("postgres", { TURNLOG_DATABASE_URL: url }, async (follower) => {
          // The follower's own listening connection, by the name it gives it.
          const name = Buffer.from(`turnlog-follow ${follower.pid} ${hostname()}`).subarray(0, 63).toString()
          const backends = () =>
            admin<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1", [name]).then((rows) => rows.map((r) => r.pid))
          const waitUntil = async (ok: (pids: Array<number>) => boolean, what: string) => {
            const deadline = Date.now() + 60_000
            for (;;) {
              const pids = await backends()
              if (ok(pids)) return pids
              if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${pids.join(", ")})`)
              await new Promise((resolve) => setTimeout(resolve, 100))
            }
          }
          const [before] = await waitUntil((pids) => pids.length === 1, "the follower's connection")
          await admin("SELECT pg_terminate_backend($1)", [before])
          await waitUntil((pids) => pids.length === 1 && pids[0] !== before, "the follower to reconnect")
        })
      } finally {
        await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      }
    })
  })
})
