// `turnlog run` ends the answer's line before anything else is shown: two
// answers of one turn (text, a tool call, more text) stay on their own lines
// on stdout, and no stderr note lands mid-line.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

const text = (index: number, t: string) => [
  { type: "block-start", index, blockType: "text" },
  { type: "text-delta", index, text: t },
  { type: "block-end", index, block: { type: "text", text: t } },
]
const args = JSON.stringify({ path: "notes.txt" })
const SCRIPT = [
  [
    ...text(0, "Reading the notes."),
    { type: "block-start", index: 1, blockType: "tool-call" },
    { type: "tool-call-delta", index: 1, id: "call_1", name: "read_file", argumentsDelta: args },
    { type: "block-end", index: 1, block: { type: "tool-call", id: "call_1", name: "read_file", arguments: args } },
    { type: "finish", reason: { kind: "tool-calls" } },
  ],
  [...text(0, "Done: they say hello."), { type: "finish", reason: { kind: "stop" } }],
]

describe("turnlog run with a tool call between two answers", () => {
  it("keeps the two answers apart on stdout", async () => {
    const home = tempDir("layout-home")
    const cwd = tempDir("layout-cwd")
    writeFileSync(join(cwd, "notes.txt"), "hello\n")
    const script = join(home, "model.jsonl")
    writeFileSync(script, SCRIPT.map((c) => JSON.stringify(c)).join("\n") + "\n")

    const result = await turnlog(["--home", home, "run", "read the notes"], {
      cwd,
      env: { TURNLOG_SCRIPTED_MODEL: script },
    })

    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe("Reading the notes.\nDone: they say hello.\n")
  })
})
