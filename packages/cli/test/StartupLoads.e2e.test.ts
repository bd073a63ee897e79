// How many JavaScript files `turnlog --version` and `turnlog sessions` load:
// the built command is a few chunks with its dependencies bundled and
// tree-shaken, and everything a short command does not use loads when used.
// An import through a package's index (all of effect, fast-check with it) or a
// static import of the ACP or MCP SDK, PostgreSQL or SQLite shows up here as
// hundreds of files. Counted by a preload in the real binary's process.
import { execFile } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { BIN, cleanEnv, removeTempDirs, tempDir } from "./support/turnlog.js"

const COUNT = fileURLToPath(new URL("./fixtures/loads/count.mjs", import.meta.url))
const DIST = fileURLToPath(new URL("../dist/main.js", import.meta.url))
const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const BUDGET = 100

afterAll(removeTempDirs)

const VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version

/** The command's output and the files its process loaded (each once, relative to the repository). */
const loads = (args: ReadonlyArray<string>) => {
  const dir = tempDir("loads")
  const file = join(dir, "loaded.txt")
  return new Promise<{ stdout: string; stderr: string; files: Array<string> }>((resolve, reject) =>
    execFile(
      process.execPath,
      ["--import", COUNT, BIN, ...args],
      { cwd: dir, env: { ...cleanEnv(), NODE_OPTIONS: "", TURNLOG_HOME: join(dir, "home"), TURNLOG_LOADS_FILE: file } },
      (error, stdout, stderr) => {
        if (error !== null) return reject(new Error(`${args.join(" ")} failed: ${stderr}`))
        const listed = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((line) => line !== "") : []
        const files = [...new Set(listed)].filter((path) => !path.startsWith(COUNT.replace(/count\.mjs$/, "")))
        resolve({ stdout, stderr, files: files.map((path) => relative(ROOT, path)) })
      },
    )
  )
}

/** Files counted per package (node_modules/<name>) or workspace folder, largest first: what to look at when over. */
const byPackage = (files: ReadonlyArray<string>): Record<string, number> => {
  const counts: Record<string, number> = {}
  for (const file of files) {
    const key = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? file.split("/").slice(0, 3).join("/")
    counts[key] = (counts[key] ?? 0) + 1
  }
  return Object.fromEntries(Object.entries(counts).sort((a, b) => b[1] - a[1]))
}

describe("files loaded at start-up", () => {
  it("the build is there to measure (npm run build)", () => {
    expect(existsSync(DIST)).toBe(true)
  })

  it(`turnlog --version answers with the version and loads at most ${BUDGET} files`, async () => {
    const { files, stderr, stdout } = await loads(["--version"])
    expect({ stdout, stderr }).toEqual({ stdout: `${VERSION}\n\n`, stderr: "" })
    expect(files.length, JSON.stringify(byPackage(files))).toBeLessThanOrEqual(BUDGET)
  })

  it(`turnlog --help, answered from the build, loads at most ${BUDGET} files`, async () => {
    const { files, stdout } = await loads(["--help"])
    expect(stdout).toContain("\nUsage\n  turnlog <command> [options]\n")
    expect(files).toContain("packages/cli/dist/main.js")
    expect(files.length, JSON.stringify(byPackage(files))).toBeLessThanOrEqual(BUDGET)
  })

  it(`turnlog sessions on an empty home runs the build and loads at most ${BUDGET} files`, async () => {
    const { files, stderr, stdout } = await loads(["sessions"])
    expect({ stdout, stderr }).toEqual({ stdout: "no sessions yet (start one with: turnlog run <prompt>)\n", stderr: "" })
    expect(files).toContain("packages/cli/dist/main.js")
    expect(files.length, JSON.stringify(byPackage(files))).toBeLessThanOrEqual(BUDGET)
  })
})
