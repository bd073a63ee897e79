// `turnlog run` stopped by a signal while the answer streams: Ctrl-C (SIGINT)
// and SIGTERM (a service manager, `timeout`, `kill`) both close the turn in
// the log as cancelled, keeping what streamed, and the exit code says which
// signal it was, as a shell would (128 + its number): 130 and 143.
import { spawn } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
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

/** Runs `turnlog run`, sends `signal` once the answer's first line is out, and waits for the exit. */
const runAndSignal = (signal: "SIGINT" | "SIGTERM") =>
  new Promise<{ code: number | null; stdout: string; home: string }>((resolve) => {
    const home = tempDir(`signal-${signal}-home`)
    const cwd = tempDir(`signal-${signal}-cwd`)
    const child = spawn(process.execPath, [BIN, "--home", home, "run", "count"], {
      cwd,
      env: { ...cleanEnv(), TURNLOG_SCRIPTED_MODEL: slowScript(home) },
    })
    child.stderr.resume()
    let stdout = ""
    let sent = false
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString()
      if (!sent && stdout.includes("line 0")) {
        sent = true
        child.kill(signal)
      }
    })
    child.on("exit", (code) => resolve({ code, stdout, home }))
  })

const events = (home: string) => {
  const [file] = readdirSync(join(home, "sessions")).filter((f) => f.endsWith(".jsonl"))
  return readFileSync(join(home, "sessions", file!), "utf8").trim().split("\n").slice(1)
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> })
}

describe("turnlog run stopped by a signal mid-answer", () => {
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    it(`${signal}: the turn is closed as cancelled with what streamed kept, exit ${code}`, async () => {
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
      expect(result.code).toBe(code)
    })
  }
})

