// The system prompt through the command line (in-process) against the loopback provider:
// what the provider receives (the default prompt, the instruction files from
// the repository root down to the working directory, the user's, the
// config's addition), what the log records of it, and how `show` and `doctor`
// say it.
import { createHash } from "node:crypto"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { turnlog } from "./support/inProcess.js"
import { logLines, removeTempDirs, sessionIds, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })
afterAll(removeTempDirs)

/** The system prompt of an Anthropic Messages request body, as text. */
const systemOf = (body: unknown): string => {
  const system = (body as { system?: unknown }).system
  if (typeof system === "string") return system
  if (Array.isArray(system)) return system.map((b: { text: string }) => b.text).join("")
  throw new Error(`no system prompt in ${JSON.stringify(body).slice(0, 200)}`)
}

describe("the system prompt", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  const setup = (extra: Record<string, unknown> = {}) => {
    const home = tempDir("system-home")
    const repo = tempDir("system-repo")
    mkdirSync(join(repo, ".git"))
    mkdirSync(join(repo, "pkg"))
    writeFileSync(join(repo, "AGENTS.md"), "Root rule: indent with tabs.\n")
    // Where a directory has an AGENTS.md its CLAUDE.md is not read.
    writeFileSync(join(repo, "CLAUDE.md"), "Shadowed rule.\n")
    writeFileSync(join(repo, "pkg", "CLAUDE.md"), "Package rule: run the tests.\n")
    writeFileSync(join(home, "AGENTS.md"), "User rule: answer briefly.\n")
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        model: "loop/m",
        providers: {
          loop: {
            api: "anthropic-messages",
            baseUrl: server.baseUrl("anthropic-messages"),
            apiKeyEnv: "LOOP_TEST_KEY",
            models: [{ id: "m", contextWindow: 200000, maxTokens: 8192 }],
          },
        },
        ...extra,
      }),
    )
    return { home, repo, cwd: join(repo, "pkg"), env: { TURNLOG_HOME: home, LOOP_TEST_KEY: "sk-system-0123456789" } }
  }

  it("is sent with the request: the default, then the user's, the repository's and the directory's instructions, then the config's addition", async () => {
    const { cwd, env, home, repo } = setup({ appendSystem: "Appended rule: say done." })
    const before = server.requests().length
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] })
    const run = await turnlog(["run", "hello"], { cwd, env })
    expect(run.stderr).toBe(`turnlog: session ${sessionIds(home)[0]}\n`)
    expect(run.code).toBe(0)
    const system = systemOf(server.requests()[before]!.body)

    expect(system.startsWith("You are turnlog, a coding agent.")).toBe(true)
    for (const tool of ["read_file", "list_files", "edit_file", "write_file", "run_command"]) expect(system).toContain(`- ${tool}: `)
    expect(system).toContain(`Working directory: ${cwd}\n`)
    expect(system).toMatch(/\nToday's date: \d{4}-\d\d-\d\d\n/)
    expect(system).not.toContain("Shadowed rule")
    const order = ["User rule: answer briefly.", "Root rule: indent with tabs.", "Package rule: run the tests.", "Appended rule: say done."]
    const at = order.map((text) => system.indexOf(text))
    expect(at.every((i) => i > 0)).toBe(true)
    expect([...at].sort((a, b) => a - b)).toEqual(at)
    expect(system.endsWith("\n\nAppended rule: say done.")).toBe(true)

    // The log keeps which prompt, not the prompt: its hash and sources.
    const [id] = sessionIds(home)
    const start = logLines(home, id!).find((l) => l.type === "request/start")
    expect(start.data.system).toEqual({
      hash: createHash("sha256").update(system).digest("hex"),
      sources: ["default", join(home, "AGENTS.md"), join(repo, "AGENTS.md"), join(repo, "pkg", "CLAUDE.md"), "config:appendSystem"],
    })
    expect(JSON.stringify(logLines(home, id!))).not.toContain("Root rule")

    const shown = await turnlog(["show", id!], { cwd, env })
    const label = `sha256:${start.data.system.hash.slice(0, 12)}… (default + ${join(home, "AGENTS.md")} + ${
      join(repo, "AGENTS.md")
    } + CLAUDE.md + config:appendSystem)`
    expect(shown.stdout.split("\n").slice(1, 6)).toEqual(["", "── turn 1", "user:", "  hello", `system prompt: ${label}`])

    const doctor = await turnlog(["doctor", id!], { cwd, env })
    expect(doctor.stdout).toContain(`\n  system prompt of the last request: ${label}\n`)
  })

  it("is said again by show only where it changed; the config's system replaces the default", async () => {
    const { cwd, env, home, repo } = setup()
    server.enqueue({ blocks: [{ type: "text", text: "one" }] }, { blocks: [{ type: "text", text: "two" }] })
    expect((await turnlog(["run", "first"], { cwd, env })).code).toBe(0)
    expect((await turnlog(["run", "--continue", "second"], { cwd, env })).code).toBe(0)
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        ...JSON.parse(readFileSync(join(home, "config.json"), "utf8")),
        system: "You answer in one word.",
      }),
    )
    const before = server.requests().length
    server.enqueue({ blocks: [{ type: "text", text: "three" }] })
    expect((await turnlog(["run", "--continue", "third"], { cwd, env })).code).toBe(0)
    const system = systemOf(server.requests()[before]!.body)
    expect(system.startsWith("You answer in one word.\n\n# Instructions\n")).toBe(true)
    expect(system).not.toContain("You are turnlog")

    const [id] = sessionIds(home)
    const shown = (await turnlog(["show", id!], { cwd, env })).stdout
    const said = shown.split("\n").filter((l) => l.startsWith("system prompt: "))
    expect(said.map((l) => l.replace(/sha256:[0-9a-f]{12}…/, "sha256:…"))).toEqual([
      `system prompt: sha256:… (default + ${join(home, "AGENTS.md")} + ${join(repo, "AGENTS.md")} + CLAUDE.md)`,
      `system prompt: sha256:… (config:system + ${join(home, "AGENTS.md")} + ${join(repo, "AGENTS.md")} + CLAUDE.md)`,
    ])
    const doctor = await turnlog(["doctor", id!], { cwd, env })
    expect(doctor.stdout).toMatch(/\n {2}system prompt of the last request: sha256:[0-9a-f]{12}… \(config:system \+ .*; it changed once during the session\n/)
  })

  it("a system and a systemFile both set is a usage error", async () => {
    const { cwd, env, home } = setup({ system: "a", systemFile: "prompt.md" })
    writeFileSync(join(home, "prompt.md"), "b")
    const run = await turnlog(["run", "hello"], { cwd, env })
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      `turnlog: config file ${join(home, "config.json")}: system and systemFile both replace the system prompt: keep one\n`,
    )
  })
})
