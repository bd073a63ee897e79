// `-o file`: the file appears whole when the command succeeds; a command that
// fails after writing part of it leaves the file as it was and nothing beside it.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { CommandFailed } from "../src/CliError.js"
import * as OutputFile from "../src/OutputFile.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), "turnlog-output-"))
  dirs.push(d)
  return d
}

describe("writing output to a file", () => {
  it("writes every piece, in order, when the command succeeds", async () => {
    const d = dir()
    const file = join(d, "page.html")
    writeFileSync(file, "old")
    await Effect.runPromise(OutputFile.writeFile(file, (write) => Effect.andThen(write("<p>é"), write("</p>\n"))))
    expect(readFileSync(file, "utf8")).toBe("<p>é</p>\n")
    expect(readdirSync(d)).toEqual(["page.html"])
  })

  it("leaves the file as it was, and no temporary file, when the command fails midway", async () => {
    const d = dir()
    const file = join(d, "page.html")
    writeFileSync(file, "old")
    const exit = await Effect.runPromiseExit(
      OutputFile.writeFile(file, (write) => Effect.andThen(write("half a page"), new CommandFailed({ message: "the log is damaged" }))),
    )
    expect(Exit.isFailure(exit)).toBe(true)
    expect(readFileSync(file, "utf8")).toBe("old")
    expect(readdirSync(d)).toEqual(["page.html"])
  })

  it("names the file it cannot write", async () => {
    const file = join(dir(), "missing", "page.html")
    const error = await Effect.runPromise(Effect.flip(OutputFile.writeFile(file, (write) => write("x"))))
    expect(error.message).toBe(
      `cannot write ${file}: ENOENT: no such file or directory, open '${join(file, "..", `.page.html.${process.pid}.tmp`)}'`,
    )
  })
})
