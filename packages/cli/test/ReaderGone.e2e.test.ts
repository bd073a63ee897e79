// `turnlog run … | head` (stdout's reader goes away mid-answer) and
// `turnlog run … 2>&1 | head` (stderr's reader goes away). Losing stdout stops
// the turn as Ctrl-C does — it is closed in the log as cancelled — with a
// broken pipe's exit code (141); losing stderr only drops the notes, and the
// turn goes on to its end.
import { spawn } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { BIN, cleanEnv, removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

/**
 * 40 lines of text, one chunk every 50 ms (a couple of seconds of streaming),
 * then a list_files call (its note goes to stderr), then a last answer.
 */
const slowScript = (home: string): string => {
  const lines = Array.from({ length: 40 }, (_, i) => `line ${i}\n`)
  const args = JSON.stringify({ path: "." })
  const first = [
    { type: "block-start", index: 0, blockType: "text" },
    ...lines.map((text) => ({ type: "text-delta", index: 0, text })),
    { type: "block-end", index: 0, block: { type: "text", text: lines.join("") } },
    { type: "block-start", index: 1, blockType: "tool-call" },
    { type: "tool-call-delta", index: 1, id: "call_1", name: "list_files", argumentsDelta: args },
    { type: "block-end", index: 1, block: { type: "tool-call", id: "call_1", name: "list_files", arguments: args } },
    { type: "finish", reason: { kind: "tool-calls" } },
  ]
  const last = [
    { type: "block-start", index: 0, blockType: "text" },
    { type: "text-delta", index: 0, text: "done" },
    { type: "block-end", index: 0, block: { type: "text", text: "done" } },
    { type: "finish", reason: { kind: "stop" } },
  ]
  const file = join(home, "slow.jsonl")
  writeFileSync(file, JSON.stringify({ chunks: first, delayMs: 50 }) + "\n" + JSON.stringify(last) + "\n")
  return file
}

/** Runs `turnlog run`, closes the chosen stream after its first output, and waits for the exit. */
const runAndHangUp = (which: "stdout" | "stderr") =>
  new Promise<{ code: number | null; home: string }>((resolve) => {
    const home = tempDir(`gone-${which}-home`)
    const cwd = tempDir(`gone-${which}-cwd`)
    const child = spawn(process.execPath, [BIN, "--home", home, "run", "count"], {
      cwd,
      env: { ...cleanEnv(), TURNLOG_SCRIPTED_MODEL: slowScript(home) },
    })
    const target = which === "stdout" ? child.stdout : child.stderr
    const other = which === "stdout" ? child.stderr : child.stdout
    other.resume()
    let seen = ""
    target.on("data", (data: Buffer) => {
      seen += data.toString()
      // stdout: the first line of the answer; stderr: the "session" note, before the model streams.
      if (which === "stdout" ? seen.includes("line 0") : seen.includes("turnlog: session ")) target.destroy()
    })
    child.on("exit", (code) => resolve({ code, home }))
  })

const events = (home: string) => {
  const [file] = readdirSync(join(home, "sessions")).filter((f) => f.endsWith(".jsonl"))
  return readFileSync(join(home, "sessions", file!), "utf8").trim().split("\n").slice(1)
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> })
}

describe("a reader that goes away mid-turn", () => {
  it("stdout (turnlog run … | head): the turn is closed in the log as cancelled, exit 141", async () => {
    const { code, home } = await runAndHangUp("stdout")
    const log = events(home)
    expect(log.at(-1)).toEqual(expect.objectContaining({ type: "turn/end", data: { reason: "cancelled" } }))
    // What streamed before the reader left is kept, as an interrupted message.
    expect(log.some((e) => e.type === "assistant/message")).toBe(true)
    expect(code).toBe(141)
  })

  it("stderr (turnlog run … 2>&1 | head): the notes are dropped and the turn goes on to its end", async () => {
    const { code, home } = await runAndHangUp("stderr")
    const log = events(home)
    expect(log.at(-1)).toEqual(expect.objectContaining({ type: "turn/end", data: { reason: "completed" } }))
    expect(log.filter((e) => e.type === "tool/result")).toHaveLength(1)
    expect(code).toBe(0)
  })
})
