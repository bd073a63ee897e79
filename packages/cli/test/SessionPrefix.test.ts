// Session ids by any unique prefix or suffix, through the command line (in-process) against
// the scripted model: show, doctor, export, run --session and delete find the
// session; an ambiguous one is refused naming the candidates; show with no id
// shows the latest session in the current directory.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir, textScript } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 })
afterAll(removeTempDirs)

describe("session ids by prefix or suffix", () => {
  const home = tempDir("prefix-home")
  const cwd = tempDir("prefix-cwd")
  const env = { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: textScript(home, ["an answer"]) }
  let first: string
  let second: string
  beforeAll(async () => {
    const ids: Array<string> = []
    for (const prompt of ["first question", "second question"]) {
      const made = await turnlog(["run", prompt], { cwd, env })
      expect(made.code, made.stderr).toBe(0)
      ids.push(/turnlog: session (\S+)\n/.exec(made.stderr)![1]!)
    }
    ;[first, second] = ids as [string, string]
  })

  it("show takes a unique suffix, and a unique prefix", async () => {
    const bySuffix = await turnlog(["show", first.slice(-6)], { cwd, env })
    expect(bySuffix.code, bySuffix.stderr).toBe(0)
    expect(bySuffix.stdout).toContain("first question")
    const common = [...first].findIndex((c, i) => c !== second[i])
    const byPrefix = await turnlog(["show", second.slice(0, common + 1)], { cwd, env })
    expect(byPrefix.code, byPrefix.stderr).toBe(0)
    expect(byPrefix.stdout).toContain("second question")
  })

  it("show with no id shows the latest session in this directory", async () => {
    const result = await turnlog(["show"], { cwd, env })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain("second question")
    const elsewhere = tempDir("prefix-elsewhere")
    const none = await turnlog(["show"], { cwd: elsewhere, env })
    expect({ code: none.code, stderr: none.stderr }).toEqual({
      code: 1,
      stderr: `turnlog: no session in ${elsewhere} to show; name one: turnlog show <id> (list them with: turnlog sessions)\n`,
    })
  })

  it("an ambiguous prefix is refused naming its candidates", async () => {
    const result = await turnlog(["show", "20"], { cwd, env })
    const named = [first, second].sort((a, b) => (a < b ? 1 : -1))
    expect(result.code).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain(`turnlog: session "20" is ambiguous: it matches 2 sessions (`)
    for (const id of named) expect(result.stderr).toContain(id)
  })

  it("doctor, export, run --session and delete take a suffix", async () => {
    const suffix = first.slice(-6)
    const doctor = await turnlog(["doctor", suffix], { cwd, env })
    expect(doctor.code, doctor.stderr).toBe(0)
    expect(doctor.stdout).toContain(first)
    expect(doctor.stdout).not.toContain(second)
    const exported = await turnlog(["export", suffix], { cwd, env })
    expect(exported.code, exported.stderr).toBe(0)
    expect(exported.stdout).toContain(`"${first}"`)
    const continued = await turnlog(["run", "--session", suffix, "third question"], { cwd, env })
    expect(continued.code, continued.stderr).toBe(0)
    expect(continued.stderr).toContain(`turnlog: session ${first}\n`)
    const deleted = await turnlog(["delete", suffix], { cwd, env })
    expect({ code: deleted.code, stderr: deleted.stderr }).toEqual({ code: 0, stderr: `turnlog: deleted session ${first}\n` })
  })
})
