// `turnlog run` stopped by a signal while the answer streams: Ctrl-C (SIGINT),
// SIGTERM (a service manager, `timeout`, `kill`) and SIGHUP (the terminal
// closed) all close the turn in the log as cancelled, keeping what streamed,
// and the exit code says which signal it was, as a shell would (128 + its
// number): 130, 143 and 129. A second
// signal while that shutdown still runs ends the process at once — the way
// out of a shutdown stuck on a slow disk.
import { execFile, spawn } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { BIN, cleanEnv, removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

/** 200 lines of text, one chunk every 50 ms: ten seconds of streaming, far more than a test waits. */
const slowScript = (home: string): string => {
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i}\n`)
  const chunks = [
    { type: "block-start", index: 0, blockType: "text" },
    ...lines.map((text) => ({ type: "text-delta", index: 0, text })),
    { type: "block-end", index: 0, block: { type: "text", text: lines.join("") } },
    { type: "finish", reason: { kind: "stop" } },
  ]
  const file = join(home, "slow.jsonl")
  writeFileSync(file, JSON.stringify({ chunks, delayMs: 50 }) + "\n")
  return file
}

const SLOW_FSYNC_MS = 4000

/** A preload that makes every fsync take 4 s once `marker` exists: a disk that stalls, on cue. */
const slowDisk = (dir: string, marker: string): string => {
  const file = join(dir, "slow-fsync.mjs")
  writeFileSync(
    file,
    `import fs from "node:fs"
import { syncBuiltinESMExports } from "node:module"
for (const name of ["fsyncSync", "fdatasyncSync"]) {
  const original = fs[name]
  fs[name] = (fd) => {
    if (fs.existsSync(${JSON.stringify(marker)})) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${SLOW_FSYNC_MS})
    return original(fd)
  }
}
syncBuiltinESMExports()
`,
  )
  return pathToFileURL(file).href
}

interface Ended {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly home: string
  /** Milliseconds from the last signal sent to the exit. */
  readonly afterLastSignalMs: number
}

/**
 * Runs `turnlog run` and sends `signal` once the answer's first line is out;
 * with `twice`, the disk stalls from then on and the signal is sent again half
 * a second later, while the first one's shutdown waits on the disk.
 */
const runAndSignal = (signal: "SIGINT" | "SIGTERM" | "SIGHUP", twice = false) =>
  new Promise<Ended>((resolve) => {
    const home = tempDir(`signal-${signal}-home`)
    const cwd = tempDir(`signal-${signal}-cwd`)
    const marker = join(home, "disk-stalls-now")
    const child = spawn(process.execPath, [BIN, "--home", home, "run", "count"], {
      cwd,
      env: {
        ...cleanEnv(),
        TURNLOG_SCRIPTED_MODEL: slowScript(home),
        ...(twice ? { NODE_OPTIONS: `--import=${slowDisk(home, marker)}` } : {}),
      },
    })
    child.stderr.resume()
    let stdout = ""
    let sent = false
    let lastSignalAt = 0
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString()
      if (!sent && stdout.includes("line 0")) {
        sent = true
        if (twice) writeFileSync(marker, "")
        lastSignalAt = Date.now()
        child.kill(signal)
        if (twice) {
          setTimeout(() => {
            lastSignalAt = Date.now()
            child.kill(signal)
          }, 500)
        }
      }
    })
    child.on("exit", (code, ended) => resolve({ code, signal: ended, stdout, home, afterLastSignalMs: Date.now() - lastSignalAt }))
  })

const events = (home: string) => {
  const [file] = readdirSync(join(home, "sessions")).filter((f) => f.endsWith(".jsonl"))
  return readFileSync(join(home, "sessions", file!), "utf8").trim().split("\n").slice(1)
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> })
}

describe("turnlog run stopped by a signal mid-answer", () => {
  // After SIGHUP the process ends by the signal itself once the turn is closed: a shell reports 129.
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", null]] as const) {
    it(`${signal}: the turn is closed as cancelled with what streamed kept, exit ${code ?? "by the signal (129)"}`, async () => {
      const result = await runAndSignal(signal)
      const log = events(result.home)
      expect(log.at(-1)).toEqual(expect.objectContaining({ type: "turn/end", data: { reason: "cancelled" } }))
      const kept = log.filter((e) => e.type === "assistant/message")
      expect(kept).toHaveLength(1)
      const content = (kept[0]!.data["message"] as { content: ReadonlyArray<{ type: string; text: string }> }).content
      expect(content).toHaveLength(1)
      expect(content[0]!.text.startsWith("line 0\n")).toBe(true)
      // Ten seconds of answer were scripted; the signal stopped it well before the end.
      expect(result.stdout).not.toContain("line 199")
      expect({ code: result.code, signal: result.signal }).toEqual({ code, signal: code === null ? signal : null })
    })
  }
})

describe("a second signal while the first one's shutdown still runs", () => {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    it(`${signal} twice: the second ends the process at once, without waiting for the stalled disk`, async () => {
      const result = await runAndSignal(signal, true)
      // Killed by the signal itself (no exit code), well before the stalled fsync would have returned.
      expect(
        { code: result.code, signal: result.signal, promptly: result.afterLastSignalMs < SLOW_FSYNC_MS / 2 },
        JSON.stringify(result.afterLastSignalMs),
      ).toEqual({ code: null, signal, promptly: true })
    }, 30_000)
  }
})

// Runs argv on a pseudo-terminal, closes the terminal once "line 0" shows (the
// kernel then sends SIGHUP, and writes to the terminal fail with EIO), and
// prints {"shellStatus", "timedOut"} (the status as a shell reports it: 128 + n when killed by signal n).
const CLOSE_TERMINAL = String.raw`
import json, os, pty, select, sys, time
cwd, argv = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.chdir(cwd)
    os.execv(argv[0], argv)
buf, deadline = b"", time.time() + 60
while b"line 0" not in buf and time.time() < deadline:
    r, _, _ = select.select([fd], [], [], 0.1)
    if r:
        buf += os.read(fd, 65536)
os.close(fd)
status = None
while status is None and time.time() < deadline:
    p, st = os.waitpid(pid, os.WNOHANG)
    if p:
        status = st
    else:
        time.sleep(0.05)
if status is None:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
print(json.dumps({"shellStatus": None if status is None else (128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)), "timedOut": status is None}))
`

describe("the terminal closed under turnlog run", () => {
  it("is a SIGHUP: the turn is closed as cancelled with what it showed, exit 129", async () => {
    const home = tempDir("hangup-home")
    const cwd = tempDir("hangup-cwd")
    const result = await new Promise<{ shellStatus: number | null; timedOut: boolean }>((resolve, reject) =>
      execFile(
        "python3",
        ["-c", CLOSE_TERMINAL, cwd, process.execPath, BIN, "--home", home, "run", "count"],
        { env: { ...cleanEnv(), TURNLOG_SCRIPTED_MODEL: slowScript(home) } },
        (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout))),
      )
    )
    const log = events(home)
    expect(log.at(-1)).toEqual(expect.objectContaining({ type: "turn/end", data: { reason: "cancelled" } }))
    const kept = log.filter((e) => e.type === "assistant/message")
    expect(kept).toHaveLength(1)
    const content = (kept[0]!.data["message"] as { content: ReadonlyArray<{ type: string; text: string }> }).content
    expect(content[0]!.text.startsWith("line 0\n")).toBe(true)
    // Not an abort (134) nor a crash (139): Node cannot exit normally on a hung-up terminal.
    expect(result).toEqual({ shellStatus: 129, timedOut: false })
  }, 90_000)
})
