// What is not a regular file where a log or the config should be (a FIFO, a
// device) is refused by name before it is read — a FIFO blocked `sessions`,
// `show`, `doctor` and `run` in open(), deaf to SIGTERM, and `--config
// /dev/zero` aborted with bad_alloc. A home the user cannot enter is said to
// be so (exit 1), not listed as empty. (A home that is a file: HostileFiles.test.ts.)
import { execFile, execFileSync } from "node:child_process"
import { chmodSync, chownSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { BIN, cleanEnv, removeTempDirs, tempDir, textScript } from "./support/turnlog.js"

afterAll(removeTempDirs)

/** The binary, killed (SIGKILL: a process blocked in open() ignores SIGTERM) if it takes over a minute. */
const bounded = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string>, uid?: number) =>
  new Promise<{ code: number | null; stdout: string; stderr: string; hung: boolean }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { ...cleanEnv(), ...env }, timeout: 60_000, killSignal: "SIGKILL", ...(uid === undefined ? {} : { uid, gid: uid }) },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : typeof error.code === "number" ? error.code : null,
          stdout,
          stderr,
          hung: error !== null && error.signal === "SIGKILL",
        }),
    )
  })

const ID = "20250101T000000-0000f1f0"

describe("a FIFO where a session log should be", () => {
  const home = tempDir("fifo-home")
  const cwd = tempDir("fifo-cwd")
  mkdirSync(join(home, "sessions"))
  const fifo = join(home, "sessions", `${ID}.jsonl`)
  execFileSync("mkfifo", [fifo])
  const refused = `${fifo}:1: not a regular file (a FIFO): not read`

  it.each([
    [["sessions"], `turnlog: session ${ID} cannot be read: ${refused}\nturnlog: 1 session(s) cannot be read (see: turnlog doctor --all)\n`],
    [["show", ID], `turnlog: ${refused}\n`],
    [["doctor", ID], `turnlog: ${refused}\n`],
    // Which model would answer is said once the session is open: it may be the session's own.
    [["run", "--session", ID, "go on"], `turnlog: ${refused}\n`],
  ])("turnlog %j refuses it by name at once (exit 1)", async (args, stderr) => {
    const result = await bounded(args, cwd, { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: textScript(home, ["an answer"]) })
    expect({ hung: result.hung, code: result.code, stderr: result.stderr }).toEqual({ hung: false, code: 1, stderr })
  })
})

describe("a config that is not a regular file, or too large", () => {
  const home = tempDir("config-home")
  const cwd = tempDir("config-cwd")
  const fifo = join(home, "config.fifo")
  execFileSync("mkfifo", [fifo])
  const large = join(home, "large.json")
  writeFileSync(large, JSON.stringify({ model: "a/b", pad: "x".repeat(2 * 1024 * 1024) }))

  it.each([
    ["/dev/zero", "turnlog: config file /dev/zero is a character device, not a regular file: not read\n"],
    [fifo, `turnlog: config file ${fifo} is a FIFO (named pipe), not a regular file: not read\n`],
    [home, `turnlog: config file ${home} is a directory, not a regular file: not read\n`],
    [large, `turnlog: config file ${large} is larger than 1 MiB: not read\n`],
  ])("--config %s is refused by name (exit 2)", async (file, stderr) => {
    const result = await bounded(["--config", file, "sessions"], cwd, { TURNLOG_HOME: home })
    expect({ hung: result.hung, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      hung: false,
      code: 2,
      stdout: "",
      stderr,
    })
  })
})

describe("a home that cannot be used", () => {
  // As root the command runs as nobody, which needs to reach the binary: a clone under a
  // 0700 directory (a root home) cannot be run by nobody, and the case cannot be made there.
  const root = process.getuid?.() === 0
  const reachable = !root || (() => {
    try {
      execFileSync(process.execPath, ["-e", `require("fs").accessSync(${JSON.stringify(BIN)}, require("fs").constants.R_OK)`], {
        uid: 65534,
        gid: 65534,
        cwd: "/",
        stdio: "ignore",
      })
      return true
    } catch {
      return false
    }
  })()

  it.skipIf(!reachable).each([["sessions"], ["doctor"], ["show", ID]])(
    "turnlog %j on a home the user cannot enter says permission denied (exit 1)",
    async (...args) => {
      const dir = tempDir("locked-home")
      chmodSync(dir, 0o755)
      const home = join(dir, "home")
      mkdirSync(join(home, "sessions"), { recursive: true })
      // root enters every directory: the command then runs as nobody, the home still root's.
      chmodSync(home, root ? 0o700 : 0o000)
      const cwd = tempDir("locked-cwd")
      if (root) {
        chmodSync(cwd, 0o755)
        chownSync(cwd, 65534, 65534)
      }
      try {
        const result = await bounded(["--home", home, ...args], cwd, { HOME: cwd }, root ? 65534 : undefined)
        expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
          code: 1,
          stdout: "",
          stderr: `turnlog: the home ${home}: permission denied\n`,
        })
      } finally {
        chmodSync(home, 0o700)
      }
    },
  )
})
