// `turnlog import` refuses a seq gap, a damaged line, an unknown event type,
// a newer version and a torn tail, in the JSONL reader's own words, touching
// nothing; a session with an open turn is imported as it is, exported byte for
// byte, and refused a second time (from stdin); export of an unknown id fails
// with nothing on stdout. Through the command line, in-process.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { SessionLog } from "@turnlog/protocol"
import { turnlog } from "./support/inProcess.js"
import { hasStackTrace, removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

describe("turnlog import refuses what is not a whole log of this version", () => {
  const home = tempDir("import-home")
  const cwd = tempDir("import-cwd")
  const env = { TURNLOG_HOME: home }
  const header = { type: "session", version: 1, id: "20260101T000000-0a0b0c0d", createdAt: "2026-01-01T00:00:00.000Z", cwd }
  const event = (seq: number, type: string, data: unknown) => JSON.stringify({ seq, time: `2026-01-01T00:00:0${seq}.000Z`, type, data })
  const user = (seq: number, text: string) =>
    event(seq, "user/message", {
      message: { id: `msg_u${seq}`, role: "user", content: [{ type: "text", text }], source: { kind: "user" } },
    })
  const log = (...lines: ReadonlyArray<string>) => lines.map((l) => `${l}\n`).join("")
  const good = log(JSON.stringify(header), event(1, "turn/start", {}), user(2, "hi"))

  const refused = async (name: string, text: string, message: string) => {
    const file = join(cwd, name)
    writeFileSync(file, text)
    const outcome = await turnlog(["import", file], { cwd, env })
    expect(outcome.code).toBe(1)
    expect(outcome.stdout).toBe("")
    expect(outcome.stderr).toBe(`turnlog: ${file}${message}: nothing imported\n`)
    expect(hasStackTrace(outcome.stderr)).toBe(false)
    expect(existsSync(join(home, "sessions", `${header.id}.jsonl`))).toBe(false)
    return file
  }

  it("a gap in seq, a damaged line, an unknown event type, a newer version, a torn tail: each named by file and line", async () => {
    await refused("gap.jsonl", log(JSON.stringify(header), event(1, "turn/start", {}), user(3, "hi")), ":3: expected event seq 2, found 3")
    await refused(
      "newer.jsonl",
      log(JSON.stringify({ ...header, version: 99 })),
      `: log version 99 was written by a newer turnlog (this build reads version ${SessionLog.LOG_VERSION})`,
    )
    await refused(
      "unknown.jsonl",
      log(JSON.stringify(header), event(1, "turn/start", {}), event(2, "turn/pause", {})),
      ':3: unknown event type "turn/pause" (written by a newer turnlog?)',
    )
    await refused(
      "torn.jsonl",
      log(JSON.stringify(header), event(1, "turn/start", {})) + user(2, "hi").slice(0, 30),
      ":3: the file ends in a torn tail (a write that never finished): it does not hold the whole session",
    )
    const damaged = await refused(
      "damaged.jsonl",
      log(JSON.stringify(header), event(1, "turn/start", {}), '{"seq":2,"ti', user(3, "hi")),
      ":3: unreadable line followed by a complete event (seq 3, line 4)",
    )
    // The JSONL reader says the same of the same log.
    const readerHome = tempDir("import-reader")
    mkdirSync(join(readerHome, "sessions"))
    writeFileSync(join(readerHome, "sessions", `${header.id}.jsonl`), readFileSync(damaged))
    const shown = await turnlog(["show", header.id], { cwd, env: { TURNLOG_HOME: readerHome } })
    expect(shown.code).toBe(1)
    expect(shown.stderr).toBe(
      `turnlog: ${join(readerHome, "sessions", `${header.id}.jsonl`)}:3: unreadable line followed by a complete event (seq 3, line 4)\n`,
    )
  })

  it("imports a session with an open turn as it is, exports it byte for byte (named, or as the latest here), and refuses it a second time", async () => {
    const file = join(cwd, "good.jsonl")
    writeFileSync(file, good)
    const imported = await turnlog(["import", file], { cwd, env })
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stdout).toBe(`imported session ${header.id}: 2 events\n`)
    expect(imported.stderr).toBe(
      `turnlog: session ${header.id}: its last turn (from event 1) is open; it is closed as interrupted when the session is next opened\n`,
    )
    // Byte for byte, the header included: its creation time, and version 1 (the build that wrote it still reads it).
    const stored = readFileSync(join(home, "sessions", `${header.id}.jsonl`), "utf8")
    expect(stored).toBe(good)

    const exported = await turnlog(["export", header.id], { cwd, env })
    expect(exported.code).toBe(0)
    expect(exported.stdout).toBe(stored)
    expect(exported.stderr).toBe(
      `turnlog: session ${header.id}: its last turn (from event 1) was left open; exported as it is (the next open closes it as interrupted)\n`,
    )

    // No id: the latest session of the directory it is run in.
    const latest = await turnlog(["export"], { cwd, env })
    expect(latest.code).toBe(0)
    expect(latest.stdout).toBe(stored)
    const elsewhere = tempDir("import-elsewhere")
    expect(await turnlog(["export", "--html"], { cwd: elsewhere, env })).toEqual({
      code: 1,
      stdout: "",
      stderr: `turnlog: no session in ${elsewhere} to export; name one: turnlog export <id> (list them with: turnlog sessions)\n`,
    })

    const again = await turnlog(["import", "-"], { cwd, env, stdin: good })
    expect(again.code).toBe(1)
    expect(again.stderr).toBe(`turnlog: session ${header.id} already exists in the jsonl store (2 events): nothing imported\n`)
    expect(readFileSync(join(home, "sessions", `${header.id}.jsonl`), "utf8")).toBe(stored)
  })

  it("export of an unknown id fails with exit 1 and nothing on stdout", async () => {
    const outcome = await turnlog(["export", "20260101T000000-ffffffff"], { cwd, env })
    expect(outcome).toEqual({
      code: 1,
      stdout: "",
      stderr: "turnlog: session 20260101T000000-ffffffff not found (list sessions with: turnlog sessions)\n",
    })
  })
})
