// `turnlog run --mode`: the session's mode decides before anyone is asked —
// read-only refuses a write even with --allow-tools, a continued session keeps
// its mode from its log, auto-edit writes without a terminal to ask on.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { logLines, removeTempDirs, sessionIds, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

const finish = (kind: string) => ({ type: "finish", reason: { kind } })
const writeCall = (path: string) => {
  const args = JSON.stringify({ path, content: "x" })
  return [
    { type: "block-start", index: 0, blockType: "tool-call" },
    { type: "tool-call-delta", index: 0, id: "call_1", name: "write_file", argumentsDelta: args },
    { type: "block-end", index: 0, block: { type: "tool-call", id: "call_1", name: "write_file", arguments: args } },
    finish("tool-calls"),
  ]
}
const text = (t: string) => [
  { type: "block-start", index: 0, blockType: "text" },
  { type: "text-delta", index: 0, text: t },
  { type: "block-end", index: 0, block: { type: "text", text: t } },
  finish("stop"),
]
const script = (dir: string, name: string, path: string) => {
  const file = join(dir, name)
  writeFileSync(file, [writeCall(path), text("Done.")].map((c) => JSON.stringify(c)).join("\n") + "\n")
  return file
}

describe("turnlog run --mode", () => {
  it("read-only refuses writes (even with --allow-tools) and is kept by --continue; auto-edit writes without asking", async () => {
    const home = tempDir("mode-home")
    const cwd = tempDir("mode-cwd")
    const refused = "tool write_file failed: permission denied: Write a.txt (the session is in read-only mode: nothing is written or run)"

    const first = await turnlog(["--home", home, "run", "--mode", "read-only", "--allow-tools", "make a.txt"], {
      cwd,
      env: { TURNLOG_SCRIPTED_MODEL: script(home, "one.jsonl", "a.txt") },
    })
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).toContain(refused)
    expect(existsSync(join(cwd, "a.txt"))).toBe(false)

    const second = await turnlog(["--home", home, "run", "--continue", "--allow-tools", "make a.txt now"], {
      cwd,
      env: { TURNLOG_SCRIPTED_MODEL: script(home, "two.jsonl", "a.txt") },
    })
    expect(second.code, second.stderr).toBe(0)
    expect(second.stderr).toContain(refused)
    expect(existsSync(join(cwd, "a.txt"))).toBe(false)

    // stdin is not a terminal: in ask mode this write would be refused unasked; auto-edit needs no one.
    const third = await turnlog(["--home", home, "run", "--continue", "--mode", "auto-edit", "make b.txt"], {
      cwd,
      env: { TURNLOG_SCRIPTED_MODEL: script(home, "three.jsonl", "b.txt") },
    })
    expect(third.code, third.stderr).toBe(0)
    expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("x")

    const [id] = sessionIds(home)
    const modes = logLines(home, id!).flatMap((l) => (l.type === "session/mode" ? [l.data.mode] : []))
    expect(modes).toEqual(["read-only", "auto-edit"])
  })

  it("a mode it does not know is a usage error naming the choices", async () => {
    const home = tempDir("mode-home")
    const result = await turnlog(["--home", home, "run", "--mode", "yolo", "hi"], { cwd: home })
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      "turnlog: --mode takes ask, read-only, auto-edit or full-access, not 'yolo'\nusage: turnlog run [options] [--] [<prompt>...] (more: turnlog help run)\n",
    )
  })
})
