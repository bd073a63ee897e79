// `doctor` with no id examines the latest session in the current directory,
// as `show` does; `--all` examines every stored session, and an id with
// `--all` is refused.
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir, textScript } from "./support/turnlog.js"

afterAll(removeTempDirs)

const sessionOf = (stderr: string) => /session (\S+)/.exec(stderr)![1]!

describe("doctor's session", () => {
  const home = tempDir("doctor-latest-home")
  const here = tempDir("doctor-here")
  const there = tempDir("doctor-there")
  const env = { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: textScript(home, ["one", "two", "three"]) }
  const report = (id: string, cwd: string) =>
    `session ${id} (${cwd}): 6 events, 1 assistant message: 1 replay natively, 0 degrade, 0 without replay state\n` +
    "  system prompt of the last request: sha256:<hash> (default)\n  ok"
  /** The prompt's hash depends on the directory and the date: shown as <hash>. */
  const hashless = (text: string) => text.replace(/sha256:[0-9a-f]{12}…/g, "sha256:<hash>")

  it("is the latest in this directory; --all is every one; none here is said", async () => {
    const older = sessionOf((await turnlog(["run", "first"], { cwd: here, env })).stderr)
    const latest = sessionOf((await turnlog(["run", "second"], { cwd: here, env })).stderr)
    const elsewhere = sessionOf((await turnlog(["run", "third"], { cwd: there, env })).stderr)

    const doctor = await turnlog(["doctor"], { cwd: here, env })
    expect({ code: doctor.code, stdout: hashless(doctor.stdout), stderr: doctor.stderr }).toEqual({
      code: 0,
      stdout: `${report(latest, here)}\n`,
      stderr: "",
    })

    const all = await turnlog(["doctor", "--all"], { cwd: here, env })
    expect(all.code, all.stderr).toBe(0)
    expect(hashless(all.stdout)).toBe(`${[report(elsewhere, there), report(latest, here), report(older, here)].join("\n")}\n`)

    const empty = tempDir("doctor-empty")
    const none = await turnlog(["doctor"], { cwd: empty, env })
    expect({ code: none.code, stdout: none.stdout, stderr: none.stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr: `turnlog: no session in ${empty} to doctor; name one: turnlog doctor <id> (list them with: turnlog sessions)\n`,
    })

    const both = await turnlog(["doctor", "--all", latest], { cwd: here, env })
    expect({ code: both.code, stderr: both.stderr }).toEqual({ code: 2, stderr: "turnlog: doctor takes a session id or --all, not both\n" })
  })
})
