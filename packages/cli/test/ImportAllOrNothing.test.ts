// `turnlog import` through the command line (in-process), into JSONL and
// SQLite: what no store could serve or write is refused in verification with
// one sentence naming the file and line (an id that is not a session id, a
// relative cwd, an event nested 100,000 levels deep), exit 1, nothing stored;
// an event nested exactly as deep as allowed is stored whole and exported
// back byte for byte; doctor names a torn tail's copy a killed process left.
// (PostgreSQL, a 150 MB event, a full disk and a slow pipe:
// ImportAllOrNothing.e2e.test.ts.)
import { existsSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { hasStackTrace, removeTempDirs, tempDir, textScript } from "./support/turnlog.js"

afterAll(removeTempDirs)

const ID = "20260101T000000-1e2e3e4e"
const TIME = "2026-01-01T00:00:00.000Z"
const header = (fields: Record<string, unknown> = {}) => JSON.stringify({ type: "session", version: 2, id: ID, createdAt: TIME, cwd: "/work/moved", ...fields })
const event = (seq: number, type: string, data: unknown) => JSON.stringify({ seq, time: TIME, type, data })
const user = (seq: number, text: string) =>
  event(seq, "user/message", { message: { id: `msg_${seq}`, role: "user", content: [{ type: "text", text }], source: { kind: "user" } } })
/** `turns` completed turns; the user message of turn `bigTurn` is `bigText`. */
const turns = (count: number, bigTurn = -1, bigText = "") =>
  Array.from({ length: count }, (_, t) => [
    event(3 * t + 1, "turn/start", {}),
    user(3 * t + 2, t === bigTurn ? bigText : `turn ${t}`),
    event(3 * t + 3, "turn/end", { reason: "completed" }),
  ]).flat()
const log = (...lines: ReadonlyArray<string>) => lines.map((l) => `${l}\n`).join("")
/** A `turn/start` whose line nests `depth` levels deep (the event, its data, then arrays). */
const nested = (seq: number, depth: number) =>
  `{"seq":${seq},"time":"${TIME}","type":"turn/start","data":{"x":${"[".repeat(depth - 2)}${"]".repeat(depth - 2)}}}`

interface Store {
  readonly name: "jsonl" | "sqlite"
  /** Arguments and environment for a command on a fresh, empty store. */
  readonly fresh: () => Promise<{ readonly args: ReadonlyArray<string>; readonly env: Record<string, string> }>
}

const STORES: ReadonlyArray<Store> = [
  { name: "jsonl", fresh: async () => ({ args: [], env: { TURNLOG_HOME: tempDir("import-jsonl") } }) },
  { name: "sqlite", fresh: async () => ({ args: ["--store", "sqlite"], env: { TURNLOG_HOME: tempDir("import-sqlite") } }) },
]

const NO_SESSIONS = "no sessions yet (start one with: turnlog run <prompt>)\n"
const files = tempDir("import-files")
const cwd = tempDir("import-cwd")

describe.each(STORES)("turnlog import into $name", (store) => {
  const at = async () => {
    const target = await store.fresh()
    const run = (args: ReadonlyArray<string>) => turnlog([...target.args, ...args], { cwd, env: target.env })
    /** Nothing stored: no session listed, none in the database's table, no file in a JSONL home. */
    const empty = async () => {
      expect(await run(["sessions"])).toStrictEqual({ code: 0, stdout: NO_SESSIONS, stderr: "" })
      const dir = join(target.env.TURNLOG_HOME!, "sessions")
      if (store.name === "jsonl" && existsSync(dir)) expect(readdirSync(dir)).toStrictEqual([])
    }
    return { target, run, empty }
  }

  it("refuses an id no store serves, a relative cwd and an event nested 100,000 levels deep: one sentence each, nothing stored", async () => {
    const { run, empty } = await at()
    const long = "a".repeat(300)
    const chars = 'letters, digits, ".", "_" and "-", not first'
    const cases: ReadonlyArray<[string, string, string]> = [
      ["dots.jsonl", log(header({ id: "../../tmp/x" }), ...turns(1)), `:1: "../../tmp/x" is not a session id (${chars})`],
      ["slash.jsonl", log(header({ id: "a/b" }), ...turns(1)), `:1: "a/b" is not a session id (${chars})`],
      ["long.jsonl", log(header({ id: long }), ...turns(1)), `:1: "${"a".repeat(40)}"… (300 characters) is not a session id (at most 200 characters)`],
      ["cwd.jsonl", log(header({ cwd: "../../.." }), ...turns(1)), `:1: the session's cwd "../../.." is not an absolute path`],
      [
        "deep.jsonl",
        log(header(), event(1, "turn/start", {}), nested(2, 100_000)),
        ":3: the line nests objects and arrays more than 1000 levels deep (a store writes at most 1000)",
      ],
    ]
    for (const [name, text, said] of cases) {
      const file = join(files, `${store.name}-${name}`)
      writeFileSync(file, text)
      const outcome = await run(["import", file])
      expect(outcome).toStrictEqual({ code: 1, stdout: "", stderr: `turnlog: ${file}${said}: nothing imported\n` })
      expect(hasStackTrace(outcome.stderr)).toBe(false)
    }
    await empty()
  })

  it("stores an event nested as deep as allowed, and exports it byte for byte", async () => {
    const { run } = await at()
    const text = log(header(), nested(1, 1000), event(2, "turn/end", { reason: "completed" }))
    const file = join(files, `${store.name}-deepest.jsonl`)
    writeFileSync(file, text)
    expect(await run(["import", file])).toStrictEqual({ code: 0, stdout: `imported session ${ID}: 2 events\n`, stderr: "" })
    const exported = await run(["export", ID])
    expect(exported.code, exported.stderr).toBe(0)
    expect(exported.stdout).toBe(text)
  })
})

describe("turnlog doctor and a torn tail's copy left by a killed process", () => {
  it("names the leftover; the next open removes it", async () => {
    const home = tempDir("leftover-home")
    const work = tempDir("leftover-cwd")
    const file = join(files, "leftover.jsonl")
    writeFileSync(file, log(header({ cwd: work }), ...turns(1)))
    expect((await turnlog(["--home", home, "import", file], { cwd })).code).toBe(0)
    const leftover = join(home, "sessions", `.${ID}.jsonl.torn.tmp`)
    writeFileSync(leftover, "x".repeat(1234))
    const doctor = await turnlog(["--home", home, "doctor", ID], { cwd })
    expect(doctor).toStrictEqual({
      code: 0,
      stdout: `session ${ID} (${work}): 3 events, 0 assistant messages: 0 replay natively, 0 degrade, 0 without replay state\n` +
        `  leftover: ${leftover} (1234 bytes), an unfinished temporary file of a process that stopped; it holds nothing the log does not (removed when the session is next opened)\n`,
      stderr: "",
    })
    const ran = await turnlog(["--home", home, "run", "--session", ID, "and now"], {
      cwd: work,
      env: { TURNLOG_SCRIPTED_MODEL: textScript(work, ["Done."]) },
    })
    expect(ran.code, ran.stderr).toBe(0)
    expect(existsSync(leftover)).toBe(false)
    expect((await turnlog(["--home", home, "doctor", ID], { cwd })).stdout).toMatch(/\n {2}ok\n$/)
  })
})
