// `turnlog run --json` through the command line (in-process) against the scripted model:
// one JSON object per line on stdout for each event of the turn, nothing else
// there; the notes stay on stderr.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

const text = (t: string) => [
  { type: "block-start", index: 0, blockType: "text" },
  { type: "text-delta", index: 0, text: t },
  { type: "block-end", index: 0, block: { type: "text", text: t } },
]
const args = JSON.stringify({ path: "." })
const SCRIPT = [
  [
    { type: "block-start", index: 0, blockType: "tool-call" },
    { type: "tool-call-delta", index: 0, id: "call_1", name: "list_files", argumentsDelta: args },
    { type: "block-end", index: 0, block: { type: "tool-call", id: "call_1", name: "list_files", arguments: args } },
    { type: "finish", reason: { kind: "tool-calls" } },
  ],
  [...text("Two files."), { type: "finish", reason: { kind: "stop" } }],
]

describe("turnlog run --json", () => {
  it("prints one JSON object per event on stdout and nothing else", async () => {
    const home = tempDir("json-home")
    const cwd = tempDir("json-cwd")
    writeFileSync(join(cwd, "a.txt"), "a")
    writeFileSync(join(cwd, "b.txt"), "b")
    const script = join(home, "model.jsonl")
    writeFileSync(script, SCRIPT.map((c) => JSON.stringify(c)).join("\n") + "\n")

    const result = await turnlog(["--home", home, "run", "--json", "list the files"], {
      cwd,
      env: { TURNLOG_SCRIPTED_MODEL: script },
    })

    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.endsWith("\n")).toBe(true)
    const events = result.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as { type: string } & Record<string, unknown>)
    const id = /turnlog: session (\S+)\n/.exec(result.stderr)?.[1]
    expect(events[0]).toEqual({ type: "session", session: id, model: "turnlog/scripted" })
    expect(events.slice(1).map((e) => e.type)).toEqual([
      "turn-start",
      "tool-call",
      "tool-running",
      "tool-result",
      "text-delta",
      "turn-end",
    ])
    expect(events.find((e) => e.type === "tool-call")).toEqual({ type: "tool-call", callId: "call_1", name: "list_files", arguments: args })
    expect(events.find((e) => e.type === "tool-result")).toEqual({
      type: "tool-result",
      callId: "call_1",
      name: "list_files",
      content: "a.txt\nb.txt",
      isError: false,
    })
    expect(events.find((e) => e.type === "text-delta")).toEqual({ type: "text-delta", text: "Two files." })
    expect(events.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
    expect(result.stderr).not.toContain("Two files.")
    expect(result.stderr).not.toContain("tool list_files")
  })
})
