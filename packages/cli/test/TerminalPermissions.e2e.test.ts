// The terminal permission question of `turnlog run`, typed at through a real
// pseudo-terminal (python3's pty module; the question is only asked when stdin
// and stderr are a terminal). Ctrl-C stops the turn as it does anywhere else;
// Ctrl-D (end of input) denies; with stderr away from the terminal nothing is
// asked where nobody would see it.
import { execFile } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { BIN, cleanEnv, removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

const finish = (kind: string) => ({ type: "finish", reason: { kind } })
const call = (name: string, input: unknown) => {
  const args = JSON.stringify(input)
  return [
    { type: "block-start", index: 0, blockType: "tool-call" },
    { type: "tool-call-delta", index: 0, id: "call_1", name, argumentsDelta: args },
    { type: "block-end", index: 0, block: { type: "tool-call", id: "call_1", name, arguments: args } },
    finish("tool-calls"),
  ]
}
const writeCall = (path: string) => call("write_file", { path, content: "x" })
const text = (t: string) => [
  { type: "block-start", index: 0, blockType: "text" },
  { type: "text-delta", index: 0, text: t },
  { type: "block-end", index: 0, block: { type: "text", text: t } },
  finish("stop"),
]

// Runs argv on a pty; once "[y/N]" shows, types `keys`; prints {"code", "output", "timedOut"} (killed after `limit` s).
const PTY = String.raw`
import json, os, pty, select, sys, time
cwd, keys, limit, argv = sys.argv[1], sys.argv[2].encode("latin1"), float(sys.argv[3]), sys.argv[4:]
pid, fd = pty.fork()
if pid == 0:
    os.chdir(cwd)
    os.execv(argv[0], argv)
buf, sent, status, deadline = b"", False, None, time.time() + limit
while status is None and time.time() < deadline:
    r, _, _ = select.select([fd], [], [], 0.1)
    if r:
        try:
            buf += os.read(fd, 65536)
        except OSError:
            pass
    if not sent and b"[y/N]" in buf:
        time.sleep(0.2)
        os.write(fd, keys)
        sent = True
    p, st = os.waitpid(pid, os.WNOHANG)
    if p:
        status = st
if status is None:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
print(json.dumps({"code": None if status is None else os.waitstatus_to_exitcode(status), "output": buf.decode("utf8", "replace"), "timedOut": status is None}))
`

const onTerminal = (
  cwd: string,
  keys: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  options: { readonly limitSeconds?: number; readonly argv?: ReadonlyArray<string> } = {},
) =>
  new Promise<{ code: number | null; output: string; timedOut: boolean }>((resolve, reject) =>
    execFile(
      "python3",
      ["-c", PTY, cwd, keys, String(options.limitSeconds ?? 60), ...(options.argv ?? [process.execPath, BIN, ...args])],
      { env: { ...cleanEnv(), ...env } },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout))),
    )
  )

const lastEvents = (home: string) => {
  const [file] = readdirSync(join(home, "sessions")).filter((f) => f.endsWith(".jsonl"))
  return readFileSync(join(home, "sessions", file!), "utf8").trim().split("\n").slice(1)
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> })
}

describe("the terminal permission question of turnlog run", () => {
  it("Ctrl-C cancels the turn: no further model request, the log ends cancelled, exit 130", async () => {
    const home = tempDir("ctrlc-home")
    const cwd = tempDir("ctrlc-cwd")
    const script = join(home, "model.jsonl")
    writeFileSync(script, [writeCall("w.txt"), text("the model was asked again")].map((c) => JSON.stringify(c)).join("\n") + "\n")

    const result = await onTerminal(cwd, "\x03", ["--home", home, "run", "write it"], { TURNLOG_SCRIPTED_MODEL: script })

    expect(result.output).toContain("[y/N]")
    const events = lastEvents(home)
    expect(result.output).not.toContain("the model was asked again")
    expect(events.filter((e) => e.type === "request/start")).toHaveLength(1)
    expect(events.at(-1)).toMatchObject({ type: "turn/end", data: { reason: "cancelled" } })
    expect(result.code).toBe(130)
  })

  it("Ctrl-D (end of input) is a denial, not a tool failure", async () => {
    const home = tempDir("ctrld-home")
    const cwd = tempDir("ctrld-cwd")
    const script = join(home, "model.jsonl")
    writeFileSync(script, [writeCall("w.txt"), text("ok")].map((c) => JSON.stringify(c)).join("\n") + "\n")

    const result = await onTerminal(cwd, "\x04", ["--home", home, "run", "write it"], { TURNLOG_SCRIPTED_MODEL: script })

    expect(result.output).toContain("[y/N]")
    expect(result.output).not.toContain("Aborted with Ctrl+D")
    const results = lastEvents(home).filter((e) => e.type === "tool/result")
    expect(results.map((e) => e.data["code"])).toEqual(["PERMISSION_DENIED"])
    expect(lastEvents(home).at(-1)).toMatchObject({ type: "turn/end", data: { reason: "completed" } })
    expect(result.code).toBe(0)
  })

  it("with stderr redirected away from the terminal, the question is not asked where nobody sees it", async () => {
    // `turnlog run "…" 2>turnlog.log` in a terminal: stdin is a TTY, but the
    // question would go into the file, unseen.
    const home = tempDir("hidden-home")
    const cwd = tempDir("hidden-cwd")
    const script = join(home, "model.jsonl")
    writeFileSync(script, [writeCall("w.txt"), text("ok")].map((c) => JSON.stringify(c)).join("\n") + "\n")
    const command = `exec "${process.execPath}" "${BIN}" --home "${home}" run "write it" 2>"${join(home, "stderr.log")}"`

    const result = await onTerminal(cwd, "", [], { TURNLOG_SCRIPTED_MODEL: script }, {
      // Only a bound for the failure (a question nobody answers hangs): generous, so a busy machine never trips it.
      limitSeconds: 40,
      argv: ["/bin/sh", "-c", command],
    })

    const stderr = readFileSync(join(home, "stderr.log"), "utf8")
    expect(stderr).not.toContain("[y/N]")
    expect(stderr).toContain(`turnlog: denied Write w.txt (no terminal to ask; pass --allow-tools or set "permissions": "allow" in the config)\n`)
    expect(result.timedOut).toBe(false)
    expect(result.code).toBe(0)
  })

  it("shows an edit's passage and replacement as a diff before asking, and edits the file once allowed", async () => {
    const home = tempDir("edit-home")
    const cwd = tempDir("edit-cwd")
    writeFileSync(join(cwd, "calc.py"), "def add(a, b):\n    return a - b\n")
    const script = join(home, "model.jsonl")
    const edit = call("edit_file", { path: "calc.py", old_text: "    return a - b", new_text: "    return a + b" })
    writeFileSync(script, [edit, text("fixed")].map((c) => JSON.stringify(c)).join("\n") + "\n")

    const result = await onTerminal(cwd, "y\r", ["--home", home, "run", "fix it"], { TURNLOG_SCRIPTED_MODEL: script, NO_COLOR: "1" })

    // Without the terminal's control sequences (readline clears the line before its question).
    const shown = result.output.replace(/\r\n/g, "\n").replace(/\x1b\[[0-9;]*[A-Za-z]/g, "")
    expect(shown).toContain("turnlog: tool Edit calc.py\n  -    return a - b\n  +    return a + b\nturnlog: allow Edit calc.py? [y/N] ")
    expect(readFileSync(join(cwd, "calc.py"), "utf8")).toBe("def add(a, b):\n    return a + b\n")
    expect(result.code).toBe(0)
  })
})
