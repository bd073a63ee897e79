// Every kind of damaged log, read by every command that reads one: each
// refuses it in one sentence naming the log, exits non-zero, prints no stack
// frame, and leaves the file byte for byte as it was (checked by hash) —
// damaged data is never repaired, skipped or rewritten silently.
import { createHash } from "node:crypto"
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { hasStackTrace, removeTempDirs, tempDir, textScript } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000 })
afterAll(removeTempDirs)

/** One damaged log: how it is made from a good one, and where the refusal must point. */
interface Damage {
  readonly kind: string
  readonly make: (lines: ReadonlyArray<string>) => Buffer
  /** The line of the damage, named after the file; none for a log refused as a whole (a newer version). */
  readonly line?: number
}

const text = (lines: ReadonlyArray<string>) => Buffer.from(lines.map((l) => `${l}\n`).join(""))
const edit = (lines: ReadonlyArray<string>, index: number, f: (value: Record<string, unknown>) => void) =>
  lines.map((line, i) => {
    if (i !== index) return line
    const value = JSON.parse(line) as Record<string, unknown>
    f(value)
    return JSON.stringify(value)
  })

const DAMAGES: ReadonlyArray<Damage> = [
  { kind: "an empty file", make: () => Buffer.alloc(0), line: 1 },
  { kind: "no header (events from the first line)", make: (l) => text(l.slice(1)), line: 1 },
  { kind: "a header that is not JSON", make: (l) => text(["{session", ...l.slice(1)]), line: 1 },
  { kind: "a header naming another session", make: (l) => text(edit(l, 0, (h) => (h.id = "20200101T000000-00000000"))), line: 1 },
  { kind: "a header of a newer log version", make: (l) => text(edit(l, 0, (h) => (h.version = 99))) },
  { kind: "an unknown event type", make: (l) => text(edit(l, 2, (e) => (e.type = "future/event"))), line: 3 },
  { kind: "a gap in seq", make: (l) => text([...l.slice(0, 3), ...l.slice(4)]), line: 4 },
  { kind: "a field of the wrong type", make: (l) => text(edit(l, 1, (e) => (e.seq = "1"))), line: 2 },
  { kind: "a line that is not JSON before complete events", make: (l) => text([...l.slice(0, 3), '{"seq":3,', ...l.slice(4)]), line: 4 },
  {
    kind: "bytes that are not UTF-8 before complete events",
    make: (l) => Buffer.concat([text(l.slice(0, 3)), Buffer.from([0xff, 0xfe, 0x0a]), text(l.slice(4))]),
    line: 4,
  },
]

const COMMANDS: ReadonlyArray<{ readonly name: string; readonly args: (id: string) => ReadonlyArray<string> }> = [
  { name: "sessions", args: () => ["sessions"] },
  { name: "show", args: (id) => ["show", id] },
  { name: "doctor", args: (id) => ["doctor", id] },
  { name: "run --continue", args: () => ["run", "--continue", "and now?"] },
]

const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex")

let good: ReadonlyArray<string> = []
let id = ""

beforeAll(async () => {
  // A real log, written by the command itself: one completed turn.
  const home = tempDir("matrix-source-home")
  const cwd = tempDir("matrix-source-cwd")
  const ran = await turnlog(["run", "hello there"], {
    cwd,
    env: { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: textScript(home, ["Hello."]) },
  })
  expect(ran.code).toBe(0)
  const file = readdirSync(join(home, "sessions")).find((f) => f.endsWith(".jsonl"))!
  id = file.replace(/\.jsonl$/, "")
  good = readFileSync(join(home, "sessions", file), "utf8").trim().split("\n")
  expect(good.length).toBeGreaterThan(5)
})

describe.each(DAMAGES)("a log with $kind", (damage) => {
  it.each(COMMANDS)("$name refuses it by file and line, changes nothing, and exits non-zero", async (command) => {
    const home = tempDir("matrix-home")
    const cwd = tempDir("matrix-cwd")
    // The damaged log belongs to this cwd, so `run --continue` picks it.
    const lines = good.map((line, i) => (i === 0 ? JSON.stringify({ ...JSON.parse(line), cwd }) : line))
    const bytes = damage.make(lines)
    const file = join(home, "sessions", `${id}.jsonl`)
    // A sessions directory holding only the damaged log.
    mkdirSync(join(home, "sessions"), { recursive: true })
    writeFileSync(file, bytes)
    const before = sha(bytes)

    const outcome = await turnlog(command.args(id), {
      cwd,
      env: { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: textScript(cwd, ["Never sent."]) },
    })

    expect(outcome.code, outcome.stderr).not.toBe(0)
    expect(outcome.stderr).toContain(damage.line === undefined ? `${file}: log version 99 was written by a newer turnlog` : `${file}:${damage.line}`)
    expect(hasStackTrace(outcome.stderr)).toBe(false)
    expect(outcome.stdout).not.toContain("Never sent.")
    expect(sha(readFileSync(file))).toBe(before)
    // Nothing new was made beside it: no second session, no sidecar.
    expect(readdirSync(join(home, "sessions")).filter((f) => !f.endsWith(".lock")).sort()).toEqual([`${id}.jsonl`])
  })
})
