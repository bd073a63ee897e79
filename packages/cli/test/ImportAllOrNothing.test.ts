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
import { header, ID, log, NO_SESSIONS, refusesUnservable, storesDeepest, turns } from "./support/importLogs.js"
import { removeTempDirs, tempDir, textScript } from "./support/turnlog.js"

afterAll(removeTempDirs)

interface Store {
  readonly name: "jsonl" | "sqlite"
  /** Arguments and environment for a command on a fresh, empty store. */
  readonly fresh: () => Promise<{ readonly args: ReadonlyArray<string>; readonly env: Record<string, string> }>
}

const STORES: ReadonlyArray<Store> = [
  { name: "jsonl", fresh: async () => ({ args: [], env: { TURNLOG_HOME: tempDir("import-jsonl") } }) },
  { name: "sqlite", fresh: async () => ({ args: ["--store", "sqlite"], env: { TURNLOG_HOME: tempDir("import-sqlite") } }) },
]

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
    await refusesUnservable(run, empty, files, store.name)
  })

  it("stores an event nested as deep as allowed, and exports it byte for byte", async () => {
    const { run } = await at()
    await storesDeepest(run, files, store.name)
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
