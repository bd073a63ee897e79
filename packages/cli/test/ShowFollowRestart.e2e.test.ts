// `turnlog show --follow --forever` on PostgreSQL across server restarts, as
// a user meets them: the real binary following a session on a server the test
// starts itself (never the shared one), other `turnlog run` processes writing
// turns, the server stopped (every connection ended) and started again twice.
// The follower says each outage once on stderr, waits it out, and its stdout
// holds every turn exactly once: what `show` prints at the end.
import { spawn } from "node:child_process"
import { afterAll, expect, it, vi } from "vitest"
import { type PrivateServer, skipPrivatePostgres, startPrivateServer } from "./support/privatePostgres.js"
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
  const waitUntil = async (ok: () => boolean, what: string) => {
    const deadline = Date.now() + 120_000
    while (!ok()) {
      if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before ${what}:\n${stdout}\n${stderr}`)
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${stdout}\n${stderr}`)
      await new Promise<void>((resolve) => {
        waiters.push(resolve)
        setTimeout(resolve, 1000)
      })
    }
  }
  return { child, exited, waitUntil, stdout: () => stdout, stderr: () => stderr }
}

const OUTAGE = /^turnlog: read .+; following again when it answers$/

it.skipIf(skipPrivatePostgres)("show --follow --forever prints every turn exactly once across two server restarts", async () => {
  const server: PrivateServer = await startPrivateServer()
  const home = tempDir("restart")
  const cwd = tempDir("restart-cwd")
  const env = { TURNLOG_HOME: home, TURNLOG_DATABASE_URL: server.url }
  let follower: ReturnType<typeof started> | undefined
  try {
    const ask = async (n: number) => {
      const prompt = `question ${n}`
      const args = n === 1 ? ["--store", "postgres", "run", prompt] : ["--store", "postgres", "run", "--session", id, prompt]
      const done = await turnlog(args, { cwd, env: { ...env, TURNLOG_SCRIPTED_MODEL: textScript(home, [`answer ${n}`], `${n}.jsonl`) } })
      expect(done.code, done.stderr).toBe(0)
      return done
    }
    const first = await ask(1)
    const id = /^turnlog: session (\S+)$/m.exec(first.stderr)![1]!
    const f = started(["--store", "postgres", "show", "--follow", "--forever", id], cwd, env)
    follower = f
    const outages = () => f.stderr().split("\n").filter((line) => OUTAGE.test(line)).length
    await f.waitUntil(() => f.stdout().includes("turn 1 completed\n"), "turn 1")
    await ask(2)
    await f.waitUntil(() => f.stdout().includes("turn 2 completed\n"), "turn 2")

    let n = 2
    for (const restart of [1, 2]) {
      server.stop()
      // Down until the follower has found its reads failing, so the retry is what carries it over.
      await f.waitUntil(() => outages() === restart, `outage ${restart} to be noticed`)
      server.start()
      for (const _ of [1, 2]) {
        n++
        await ask(n)
        await f.waitUntil(() => f.stdout().includes(`turn ${n} completed\n`), `turn ${n}`)
      }
    }

    expect(f.child.exitCode).toBe(null)
    f.child.kill("SIGINT")
    expect(await f.exited).toBe(130)
    const lines = f.stderr().split("\n").filter((line) => line !== "")
    expect(lines.length, f.stderr()).toBe(2)
    for (const line of lines) expect(line).toMatch(OUTAGE)
    const shown = await turnlog(["--store", "postgres", "show", id], { cwd, env })
    expect(shown.code, shown.stderr).toBe(0)
    expect(f.stdout()).toBe(shown.stdout)
    // Every turn once, in order.
    expect(Array.from(f.stdout().matchAll(/^turn (\d+) completed$/gm), (m) => Number(m[1]))).toStrictEqual([1, 2, 3, 4, 5, 6])
    expect(Array.from(f.stdout().matchAll(/^ {2}(answer \d+)$/gm), (m) => m[1])).toStrictEqual(
      [1, 2, 3, 4, 5, 6].map((k) => `answer ${k}`),
    )
  } finally {
    if (follower !== undefined && follower.child.exitCode === null) {
      follower.child.kill("SIGKILL")
      await follower.exited
    }
    server.remove()
  }
})
