// How many JavaScript files `turnlog --version` and `turnlog sessions` load:
// the built command is one script with its pure-JavaScript dependencies bundled
// and tree-shaken, and what stays external (SQLite, PostgreSQL, the AI SDK's
// providers, the AWS SDK) loads when used. A static import of one of those, or
// a command run from its sources, shows up here as dozens to hundreds of files.
// Counted by a preload in the real binary's process.
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { BIN, cleanEnv, removeTempDirs, tempDir } from "./support/turnlog.js"

const COUNT = fileURLToPath(new URL("./fixtures/loads/count.mjs", import.meta.url))
const DIST = fileURLToPath(new URL("../dist/main.cjs", import.meta.url))
const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const BUDGET = 100

afterAll(removeTempDirs)

const VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version

/** The command's output and the files its process loaded (each once, relative to the repository). */
const loads = (args: ReadonlyArray<string>, dir = tempDir("loads")) => {
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

/** A home with one session whose answer the AI SDK adapter wrote. */
const aiSdkHome = (): string => {
  const dir = tempDir("loads")
  mkdirSync(join(dir, "home", "sessions"), { recursive: true })
  const id = "20260101T100000-0a1b2c3d"
  const route = { provider: "loop", model: "m" }
  const state = { response: { kind: "ai-sdk", version: 1, ...route, sdkProvider: "anthropic.messages" }, blocks: [{ type: "text" }] }
  const lines = [
    { type: "session", version: 2, id, createdAt: "2026-01-01T10:00:00.000Z", cwd: dir },
    ...[
      { type: "turn/start", data: {} },
      { type: "user/message", data: { message: { id: "u1", role: "user", content: [{ type: "text", text: "Hi" }], source: { kind: "user" } } } },
      { type: "request/start", data: route },
      {
        type: "assistant/message",
        data: {
          message: { id: "a1", role: "assistant", content: [{ type: "text", text: "Hello." }], source: { kind: "model", ...route, replayState: state } },
          finish: { kind: "stop" },
        },
      },
      { type: "turn/end", data: { reason: "completed" } },
    ].map((e, i) => ({ seq: i + 1, time: `2026-01-01T10:00:0${i + 1}.000Z`, ...e })),
  ]
  writeFileSync(join(dir, "home", "sessions", `${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
  return dir
}

/** Files that say the command ran from its sources: TypeScript, or tsx that compiles it. The build (`dist/main.cjs`) is one script the launcher compiles itself, not a module Node loads. */
const sources = (files: ReadonlyArray<string>) => files.filter((f) => f.endsWith(".ts") || f.includes("node_modules/tsx/"))

/** Files of a provider library: the AI SDK's packages or pi-ai. */
const providerLibraries = (files: ReadonlyArray<string>) => files.filter((f) => /node_modules\/(@ai-sdk\/|ai\/|@earendil-works\/pi-ai\/)/.test(f))

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
    expect(sources(files)).toEqual([])
    expect(files.length, JSON.stringify(byPackage(files))).toBeLessThanOrEqual(BUDGET)
  })

  it(`turnlog sessions on an empty home runs the build and loads at most ${BUDGET} files`, async () => {
    const { files, stderr, stdout } = await loads(["sessions"])
    expect({ stdout, stderr }).toEqual({ stdout: "no sessions yet (start one with: turnlog run <prompt>)\n", stderr: "" })
    expect(sources(files)).toEqual([])
    expect(files.length, JSON.stringify(byPackage(files))).toBeLessThanOrEqual(BUDGET)
  })

  it("doctor and export --html judge an ai-sdk session without loading a provider library", async () => {
    const dir = aiSdkHome()
    const doctor = await loads(["doctor"], dir)
    expect(doctor.stdout).toBe(
      `session 20260101T100000-0a1b2c3d (${dir}): 5 events, 1 assistant message: 1 replay natively, 0 degrade, 0 without replay state\n  ok\n`,
    )
    expect(providerLibraries(doctor.files)).toEqual([])
    const page = await loads(["export", "0a1b2c3d", "--html"], dir)
    expect(page.stdout).toContain(" · loop/m · adapter ai-sdk</div>")
    expect(page.stdout).not.toContain("INVALID_REPLAY_STATE")
    expect(providerLibraries(page.files)).toEqual([])
  })
})
