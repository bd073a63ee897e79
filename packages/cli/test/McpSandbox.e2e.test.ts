// stdio MCP servers in the sandbox `run_command` uses, through the real
// binary: a server cannot read turnlog's environment block (nor any other
// process's outside it), cannot write outside the session's directory, and
// still serves its tools. Without the sandbox the same server does both —
// which is what the sandbox is for.
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it, vi } from "vitest"
import { Builtins } from "@turnlog/agent"
import { logLines, removeTempDirs, sessionIds, tempDir, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000 })
const outsideDirs: Array<string> = []
afterAll(() => {
  removeTempDirs()
  for (const dir of outsideDirs) rmSync(dir, { recursive: true, force: true })
})

const PROBER = fileURLToPath(new URL("fixtures/mcp/prober.mjs", import.meta.url))
const MARKER = "TURNLOG_TEST_PROBE_MARKER"

// Skipped with one line where no sandbox works, unless TURNLOG_REQUIRE_SANDBOX is set (as CI does).
const sandbox = await Builtins.detectSandbox(process.env.PATH)
const required = (process.env.TURNLOG_REQUIRE_SANDBOX ?? "") !== ""
if (sandbox === undefined && !required) {
  process.stderr.write("sandbox tests skipped: bubblewrap (bwrap) is not installed or cannot start here; set TURNLOG_REQUIRE_SANDBOX=1 to fail instead\n")
}

const finish = (kind: string) => ({ type: "finish", reason: { kind } })
/** A scripted reply calling each of `calls` (name, arguments) at once, then one that answers "Done." */
const script = (calls: ReadonlyArray<readonly [string, object]>) =>
  [
    [
      ...calls.flatMap(([name, args], index) => [
        { type: "block-start", index, blockType: "tool-call" },
        { type: "block-end", index, block: { type: "tool-call", id: `call_${index}`, name, arguments: JSON.stringify(args) } },
      ]),
      finish("tool-calls"),
    ],
    [
      { type: "block-start", index: 0, blockType: "text" },
      { type: "text-delta", index: 0, text: "Done." },
      { type: "block-end", index: 0, block: { type: "text", text: "Done." } },
      finish("stop"),
    ],
  ].map((chunks) => JSON.stringify(chunks)).join("\n") + "\n"

/** Not under /tmp, which the sandbox replaces with its own. */
const outsideDir = () => {
  const dir = realpathSync(mkdtempSync("/var/tmp/turnlog-mcp-outside-"))
  outsideDirs.push(dir)
  return dir
}

/** One `turnlog run` whose model calls the prober's tools; what each call answered, in order. */
const probe = async (env: Record<string, string>) => {
  // The home too, so that its session logs are in the sandbox's view (read-only) rather than hidden by its /tmp.
  const home = outsideDir()
  const workspace = tempDir("mcp-sandbox-ws")
  const outside = outsideDir()
  writeFileSync(
    join(home, "model.jsonl"),
    script([
      ["probe__environ", {}],
      ["probe__write", { path: join(workspace, "inside.txt") }],
      ["probe__write", { path: join(outside, "outside.txt") }],
      ["probe__write", { path: join(home, "sessions", "planted.jsonl") }],
    ]),
  )
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({ scriptedModel: "model.jsonl", mcpServers: [{ name: "probe", command: process.execPath, args: [PROBER, MARKER] }] }),
  )
  const ran = await turnlog(["run", "--allow-tools", "probe"], {
    cwd: workspace,
    env: { TURNLOG_HOME: home, [MARKER]: "turnlog-only", ...env },
  })
  const [id] = sessionIds(home)
  const results = id === undefined ?
    [] :
    logLines(home, id).filter((line) => line.type === "tool/result").map((line) => (line.data.message.content as Array<{ content: string }>)[0]!.content)
  return { ran, results, home, workspace, outside }
}

describe("stdio MCP servers and the sandbox", () => {
  it.skipIf(sandbox === undefined && !required)(
    "in the sandbox: no environment block outside it, writes only in the session's directory, the tools work",
    async () => {
      const { ran, results, home, workspace, outside } = await probe({ TURNLOG_SANDBOX: "require" })
      expect([ran.code, ran.stdout], ran.stderr).toEqual([0, "Done.\n"])
      expect(results).toHaveLength(4)
      // Its parent is the sandbox's first process, started without turnlog's environment.
      expect(results[0]).toMatch(/^0 of \d+ environment blocks hold the marker; the parent's is clean$/)
      expect(results.slice(1)).toEqual([
        `wrote ${join(workspace, "inside.txt")}`,
        `could not write ${join(outside, "outside.txt")}: EROFS`,
        `could not write ${join(home, "sessions", "planted.jsonl")}: EROFS`,
      ])
      expect(readFileSync(join(workspace, "inside.txt"), "utf8")).toBe("written by an MCP server\n")
      expect(readdirSync(outside)).toEqual([])
      expect(readdirSync(join(home, "sessions")).filter((f) => f.startsWith("planted"))).toEqual([])
    },
  )

  it("without the sandbox (TURNLOG_SANDBOX=off) the same server reads turnlog's environment block and writes anywhere", async () => {
    const { ran, results, outside } = await probe({ TURNLOG_SANDBOX: "off" })
    expect([ran.code, ran.stdout], ran.stderr).toEqual([0, "Done.\n"])
    expect(results[0]).toMatch(/^1 of \d+ environment blocks hold the marker; the parent's is marked$/)
    expect(results[2]).toBe(`wrote ${join(outside, "outside.txt")}`)
  })

  it("`require` where no sandbox works: the server is not started, said in one sentence, and the turn goes on without its tools", async () => {
    // No bwrap on this PATH; the server's command is an absolute path.
    const { ran, results } = await probe({ TURNLOG_SANDBOX: "require", PATH: "/nonexistent" })
    expect(ran.stderr).toContain(
      `turnlog: MCP server "probe" could not be started: it must run in a sandbox and none works on this machine (install bubblewrap: bwrap on the PATH); its tools are not available in this session\n`,
    )
    expect(ran.code).toBe(0)
    expect(results.map((r) => r.split("\n")[0])).toEqual([
      `unknown tool "probe__environ"`,
      `unknown tool "probe__write"`,
      `unknown tool "probe__write"`,
      `unknown tool "probe__write"`,
    ])
  })
})
